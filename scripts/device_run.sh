#!/usr/bin/env bash
# The GPU runs behind NOTES.md, for a machine with a GPU and binaries built elsewhere (carry/ holds
# jitsparse and jitsparse_gpu_tests, built by scripts/setup.sh on a machine without one).
# Usage: scripts/device_run.sh OUT_DIR STEP...   steps: tests, sanitize, tune, bench, bench-cold, bench-hola,
#   bench-hola-cold, hola-tests (the GPU test cases of hola, real and complex),
#   bench-graph (bench --graph on the small set), irregular-model (bench --no-tune --l2 cold on the irregular
#   set: the model's picks), irregular (tune the irregular set, then bench it cold), irregular-warm, rcm (bench --reorder rcm on a shuffled mesh),
#   bench-hisparse, bench-hisparse-t, bench-hisparse-h (the fastest tuned hisparse variant, else the tuner's
#   first hisparse setup; op n / t / h), add-tests (the A + B GPU tests), bench-add, bench-add-t, bench-add-h,
#   bench-add-cold, bench-add-shared (HiSparse A + B against cuSPARSE csrgeam2), sanitize-add, sanitize-hisparse,
#   tune-t, bench-t, tune-h, bench-h, shared, shared-cold, train (tune --builtin train within
#   $TRAIN_BUDGET, default 7m), evaluate (within $EVAL_BUDGET, default 8m), sanitize-hola (memcheck and racecheck of the hola kernels), sanitize-new (memcheck and racecheck of the sorted sell, load
#   policy and unroll kernels), renumbered-tests (the GPU tests of renumbered @rcm variants), quick (tune --quick on the shared matrices), tuner-tests (the GPU tuner
#   tests), profile-winners (Nsight Compute on the main set's winners listed in scripts/profile_main_winners.txt,
#   summarised by scripts/ncu_summary.py), quick-vs-full (tune --quick and a full tune of tests/data from the
#   database of this cache, each in a copy of it; scripts/quick_vs_full.py), quick-heldout (tune --quick --builtin
#   large from a copy of this cache's database without the main set's large and irregular matrices,
#   scripts/heldout_db.py, against their full records there), hola-ab (scripts/ab_hola.sh with this
#   binary), ncu-hola (scripts/ncu_source.sh: per-SASS-instruction counts and stalls of hola_spmv), ab-flags (scripts/ab_flags.sh over
#   scripts/ab_main_winners.txt, one run per NVRTC flag set of $AB_FLAG_SETS); cache=DIR switches the cubin cache and tuning database for the steps after it (a fresh DIR
#   makes the next tune cold); db-save / db-load=FILE.gz carry a tuning database between calls.
set -uo pipefail
out=$1; shift
bin=${BIN:-carry}
export JITSPARSE_CACHE=${JITSPARSE_CACHE:-/tmp/jitsparse-cache}
mkdir -p "$out"
run() {  # name, command...: log to $out/name.log, print the tail
  local name=$1; shift
  local t0=$(date +%s)
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: rc $rc, $(( $(date +%s) - t0 )) s"
  tail -n "${TAIL:-25}" "$out/$name.log"
}
for step in "$@"; do
  case $step in
    tests) run gpu_tests "$bin/jitsparse_gpu_tests" ;;
    tune) run tune "$bin/jitsparse" tune -q -o "$out/tune" ;;
    bench) run bench "$bin/jitsparse" bench --no-tune -q -o "$out/bench" ;;
    irregular-model) run irregular_model "$bin/jitsparse" bench --no-tune -q --l2 cold --builtin irregular -o "$out/irregular_model" ;;
    irregular) run irregular "$bin/jitsparse" bench -q --l2 cold --builtin irregular -o "$out/irregular" ;;
    irregular-warm) run irregular_warm "$bin/jitsparse" bench --no-tune -q --builtin irregular -o "$out/irregular_warm" ;;
    bench-cold) run bench_cold "$bin/jitsparse" bench --no-tune -q --l2 cold -o "$out/bench_cold" ;;
    bench-hola) run bench_hola "$bin/jitsparse" bench --no-tune -q --layout hola -o "$out/bench_hola" ;;
    bench-hola-cold) run bench_hola_cold "$bin/jitsparse" bench --no-tune -q --l2 cold --layout hola -o "$out/bench_hola_cold" ;;
    hola-tests) run hola_tests "$bin/jitsparse_gpu_tests" -tc="*hola*,gpu spmv: real*,gpu spmv: complex*" ;;
    bench-graph) run bench_graph "$bin/jitsparse" bench --no-tune -q --graph --builtin small -o "$out/bench_graph" ;;
    rcm)  # a randomly renumbered irregular mesh, as it is and renumbered by RCM (f64)
      "$bin/jitsparse" generate --builtin train_dirac_icoflip_random_52mb -o /tmp/rcm_dirac.mtx >/dev/null
      run bench_rcm "$bin/jitsparse" bench -q -p f64 --reorder rcm /tmp/rcm_dirac.mtx@quaternion -o "$out/bench_rcm" ;;
    bench-hisparse) run bench_hisparse "$bin/jitsparse" bench --no-tune -q --layout hisparse -o "$out/bench_hisparse" ;;
    bench-hisparse-t) run bench_hisparse_t "$bin/jitsparse" bench --no-tune -q --op t --layout hisparse -o "$out/bench_hisparse_t" ;;
    bench-hisparse-h) run bench_hisparse_h "$bin/jitsparse" bench --no-tune -q --op h --layout hisparse -o "$out/bench_hisparse_h" ;;
    add-tests) run add_tests "$bin/jitsparse_gpu_tests" -tc="gpu hisparse add*,gpu cusparse add*" ;;
    bench-add) run bench_add "$bin/jitsparse" bench-add -o "$out/bench_add" ;;
    bench-add-t) run bench_add_t "$bin/jitsparse" bench-add --op t -o "$out/bench_add_t" ;;
    bench-add-h) run bench_add_h "$bin/jitsparse" bench-add --op h -o "$out/bench_add_h" ;;
    bench-add-cold) run bench_add_cold "$bin/jitsparse" bench-add --l2 cold -o "$out/bench_add_cold" ;;
    bench-add-shared) run bench_add_shared "$bin/jitsparse" bench-add tests/data/real@real tests/data/complex@complex tests/data/graph@real -o "$out/bench_add_shared" ;;
    sanitize-hisparse)  # the hisparse kernels with small leaves per lane (-s)
      for tool in memcheck racecheck; do
        run "sanitize_hisparse_$tool" timeout "${SANITIZE_LIMIT:-170}" compute-sanitizer --tool $tool --error-exitcode 9 "$bin/jitsparse_gpu_tests" \
          -tc="gpu spmv: hisparse small leaves*"
      done ;;
    sanitize-add)
      for tool in memcheck racecheck; do
        run "sanitize_add_$tool" timeout "${SANITIZE_LIMIT:-170}" compute-sanitizer --tool $tool --error-exitcode 9 "$bin/jitsparse_gpu_tests" \
          -tc="gpu hisparse add: every entry type*,gpu hisparse add: node widths*,gpu hisparse add: the state*"
      done ;;
    tune-t) run tune_t "$bin/jitsparse" tune -q --op t -o "$out/tune_t" ;;
    bench-t) run bench_t "$bin/jitsparse" bench --no-tune -q --op t -o "$out/bench_t" ;;
    tune-h) run tune_h "$bin/jitsparse" tune -q --op h -o "$out/tune_h" ;;
    bench-h) run bench_h "$bin/jitsparse" bench --no-tune -q --op h -o "$out/bench_h" ;;
    shared) run bench_shared "$bin/jitsparse" bench -q tests/data/real@real tests/data/complex@complex tests/data/graph@real -o "$out/bench_shared" ;;
    shared-cold) run bench_shared_cold "$bin/jitsparse" bench -q --l2 cold tests/data/real@real tests/data/complex@complex tests/data/graph@real -o "$out/bench_shared_cold" ;;
    sanitize)
      for tool in memcheck racecheck; do
        run "sanitize_$tool" timeout "${SANITIZE_LIMIT:-170}" compute-sanitizer --tool $tool --error-exitcode 9 "$bin/jitsparse_gpu_tests" \
          -tc="gpu spmv: real*,gpu spmv: complex*,gpu spmv: block3*,gpu export*"
      done ;;
    train) run train "$bin/jitsparse" tune -q --builtin train --budget "${TRAIN_BUDGET:-7m}" -o "$out/train" ;;
    evaluate) run evaluate "$bin/jitsparse" evaluate --budget "${EVAL_BUDGET:-8m}" -o "$out/evaluate" ;;
    quick) run quick "$bin/jitsparse" tune -q --quick tests/data/real@real tests/data/complex@complex tests/data/graph@real -o "$out/quick" ;;
    sanitize-hola)  # hola_spmv (its segmented scan) and hola_scatter, every entry type
      for tool in memcheck racecheck; do
        run "sanitize_hola_$tool" timeout "${SANITIZE_LIMIT:-170}" compute-sanitizer --tool $tool --error-exitcode 9 "$bin/jitsparse_gpu_tests" \
          -tc="gpu spmv: hola layouts*"
      done ;;
    sanitize-new)  # the kernels of the sorted sell layout, the load policies and unrolling
      for tool in memcheck racecheck; do
        run "sanitize_new_$tool" timeout "${SANITIZE_LIMIT:-170}" compute-sanitizer --tool $tool --error-exitcode 9 "$bin/jitsparse_gpu_tests" \
          -tc="${SANITIZE_NEW_CASES:-gpu spmv: sorted sell*(real)}"
      done ;;
    cache=*) export JITSPARSE_CACHE=${step#cache=}; echo "== cache $JITSPARSE_CACHE" ;;
    db-save)  # the tuning databases of the cache, gzipped into $out (db-load puts one back)
      for f in "$JITSPARSE_CACHE"/tuning/*.json; do gzip -c "$f" >"$out/$(basename "$f").gz"; done
      ls -la "$out"/*.json.gz ;;
    db-load=*)  # a gzipped database saved by db-save, into this cache (its file name says which GPU)
      src=${step#db-load=}; mkdir -p "$JITSPARSE_CACHE/tuning"
      gunzip -c "$src" >"$JITSPARSE_CACHE/tuning/$(basename "$src" .gz)"; echo "== loaded $src" ;;
    tuner-tests) run tuner_tests "$bin/jitsparse_gpu_tests" -tc="gpu tuner*" ;;
    profile-winners)
      scripts/profile_variants.sh "$out/prof" scripts/profile_main_winners.txt
      python3 scripts/ncu_summary.py "$out"/prof/*.csv | tee "$out/ncu_summary.txt"
      tar czf "$out/prof.tar.gz" -C "$out" prof && rm -rf "$out/prof" ;;  # the device tool returns few files
    hola-ab)  # the hola variants of scripts/ab_hola.sh with this binary alone (cold, main set): a baseline
      scripts/ab_hola.sh "$out/hola_ab" "main=$bin/jitsparse" ;;
    ncu-hola)  # instruction-level Nsight Compute of hola_spmv on a regular grid and on the R-MAT graph
      scripts/ncu_source.sh "$out/ncu" laplacian_large_f32 "$bin/jitsparse" laplacian_large f32 real.f32/hola-aos-aos/hola-128x8-ept16
      scripts/ncu_source.sh "$out/ncu" graph_f64 "$bin/jitsparse" graph_irregular f64 real.f64/hola-aos-aos/hola-256x4-ept4
      tar czf "$out/ncu.tar.gz" -C "$out" ncu && rm -rf "$out/ncu" ;;
    quick-heldout)
      g=$(ls "$JITSPARSE_CACHE"/tuning/*.json 2>/dev/null | head -1)
      [ -n "$g" ] || { echo "== quick_heldout: no tuning database in $JITSPARSE_CACHE (tune or db-load first)"; continue; }
      rm -rf /tmp/qho && mkdir -p /tmp/qho/tuning
      python3 scripts/heldout_db.py "$g" "/tmp/qho/tuning/$(basename "$g")" dirac_large elasticity_large helmholtz_large \
        laplacian_large dirac_irregular elasticity_irregular helmholtz_irregular laplacian_irregular graph_irregular
      JITSPARSE_CACHE=/tmp/qho run quick_heldout "$bin/jitsparse" tune -q --quick --builtin large -o "$out/quick_heldout"
      python3 scripts/quick_vs_full.py /tmp/qho/tuning/*.json "$g" --json "$out/quick_heldout.json" | tee "$out/quick_heldout.txt" ;;
    quick-vs-full)
      for kind in quick full; do
        rm -rf "/tmp/qvf-$kind" && mkdir -p "/tmp/qvf-$kind" && cp -r "$JITSPARSE_CACHE/tuning" "/tmp/qvf-$kind/"
        JITSPARSE_CACHE="/tmp/qvf-$kind" run "qvf_$kind" "$bin/jitsparse" tune -q $([ $kind = quick ] && echo --quick) \
          tests/data/real@real tests/data/complex@complex tests/data/graph@real -o "$out/qvf_$kind"
      done
      python3 scripts/quick_vs_full.py /tmp/qvf-quick/tuning/*.json /tmp/qvf-full/tuning/*.json | tee "$out/quick_vs_full.txt" ;;
    ab-flags)  # scripts/ab_flags.sh: the variants of scripts/ab_main_winners.txt once per NVRTC flag set in
      # $AB_FLAG_SETS (e.g. "off= on=-DJITSPARSE_SOMETHING=1"), cold over the built-in set; compared by ab_compare.py
      BIN=$bin/jitsparse scripts/ab_flags.sh "$out/ab_flags" scripts/ab_main_winners.txt ${AB_FLAG_SETS:?set AB_FLAG_SETS}
      python3 scripts/ab_compare.py "$out"/ab_flags/ab_*.log | tee "$out/ab_flags_compare.txt" | grep -v "^      " ;;
    new-tests) run new_tests "$bin/jitsparse_gpu_tests" -tc="gpu spmv: sorted sell*" ;;
    renumbered-tests) run renumbered_tests "$bin/jitsparse_gpu_tests" -tc="gpu spmv: renumbered*,gpu permuted*" ;;
    *) echo "unknown step $step" ;;
  esac
done
