#!/usr/bin/env bash
# A/B of two tuner binaries on one GPU host: each tunes, cold (a fresh cache of its own), the main built-in
# set and the training matrices listed in scripts/ab_tune_matrices.txt (generated once, one folder per entry
# type), then the first binary benches both databases' winners the same way (so only the search differs).
# Usage: scripts/ab_tune.sh OUT A_BIN_DIR B_BIN_DIR [tune|bench|both]
# OUT/<label>_main.log, <label>_train.log: the tunes (label a or b); OUT/<label>_db.json.gz: the database;
# OUT/bench_<label>_main_cold.log (--l2 cold) and bench_<label>_train_graph.log (--graph: in CUDA graphs).
set -uo pipefail
out=$1 a=$2 b=$3 what=${4:-both}
mkdir -p "$out"
gen=/tmp/ab_tune_matrices
entry_of() {  # the entry type of a training matrix's family
  case $1 in
    train_laplacian_*|train_graph_*) echo real ;;
    train_helmholtz_*) echo complex ;;
    train_elasticity_*) echo block3 ;;
    train_dirac_*) echo quaternion ;;
  esac
}
if [ ! -d "$gen" ]; then
  while read -r name; do
    [ -z "$name" ] && continue
    e=$(entry_of "$name")
    mkdir -p "$gen/$e"
    "$a/jitsparse" generate --builtin "$name" -o "$gen/$e/$name.mtx" >/dev/null || echo "generate $name failed"
  done < scripts/ab_tune_matrices.txt
fi
folders=()
for d in "$gen"/*/; do e=$(basename "$d"); folders+=("$gen/$e@$e"); done
timed() {  # log name, command...
  local name=$1; shift
  local t0=$(date +%s)
  "$@" >"$out/$name.log" 2>&1
  echo "== $name: rc $?, $(( $(date +%s) - t0 )) s"
  grep -E "^tuned in|^partly tuned" "$out/$name.log"
}
if [ "$what" != bench ]; then
  for label in a b; do
    bin=$a; [ $label = b ] && bin=$b
    export JITSPARSE_CACHE=/tmp/ab_tune_cache_$label
    rm -rf "$JITSPARSE_CACHE"
    timed ${label}_main timeout 240 "$bin/jitsparse" tune -q -o /tmp/ab_tune_report_$label
    timed ${label}_train timeout 200 "$bin/jitsparse" tune -q "${folders[@]}" -o /tmp/ab_tune_report_${label}_train
    gzip -c "$JITSPARSE_CACHE"/tuning/*.json >"$out/${label}_db.json.gz"
  done
fi
if [ "$what" != tune ]; then
  for label in a b; do
    export JITSPARSE_CACHE=/tmp/ab_tune_cache_$label
    timed bench_${label}_main_cold "$a/jitsparse" bench --no-tune -q --l2 cold -o /tmp/ab_bench_$label
    timed bench_${label}_train_graph "$a/jitsparse" bench --no-tune -q --graph "${folders[@]}" -o /tmp/ab_bench_train_$label
  done
fi
