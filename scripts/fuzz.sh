#!/usr/bin/env bash
# Fuzzing the readers with libFuzzer (clang, ASan + UBSan); see fuzz/README.md.
#   scripts/fuzz.sh TARGET SECONDS      build build-fuzz/, fuzz TARGET for SECONDS (niced), then merge the
#                                       inputs that add coverage into fuzz/corpus/TARGET
#   scripts/fuzz.sh --replay [DIR]      build into DIR (default build-fuzz) and run every target once on its
#                                       saved corpus and fuzz/regressions/TARGET: fails on any crash
#   scripts/fuzz.sh --build [DIR]       build only
#   scripts/fuzz.sh --summary           per target: runs, seconds, executions, last cov/ft (build-fuzz/logs/ledger.tsv)
# TARGET: matrix_market mesh_off mesh_obj mesh_ply mesh_tetgen entry_type.  FUZZ_CXX overrides clang++.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(matrix_market mesh_off mesh_obj mesh_ply mesh_tetgen entry_type)
max_len=8192

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

build() {
  local dir=$1 cxx=${FUZZ_CXX:-clang++}
  if ! command -v "$cxx" >/dev/null; then
    echo "fuzz: $cxx not found: install clang and libFuzzer (scripts/setup.sh does; Debian: apt-get install clang libclang-rt-dev)" >&2
    exit 1
  fi
  nice -n 10 cmake -S . -B "$dir" -DJITSPARSE_FUZZ=ON -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  nice -n 10 cmake --build "$dir" -j 2 >/dev/null || { nice -n 10 cmake --build "$dir" -j 1; exit 1; }
}

is_target() {
  local t
  for t in "${targets[@]}"; do [ "$t" = "$1" ] && return 0; done
  return 1
}

replay() {
  local dir=$1 t failed=0
  build "$dir"
  for t in "${targets[@]}"; do
    local files=()
    for d in "fuzz/corpus/$t" "fuzz/regressions/$t"; do
      [ -d "$d" ] && while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$d" -type f -print0 | sort -z)
    done
    if ((${#files[@]} == 0)); then
      echo "fuzz: no saved inputs for $t" >&2
      failed=1
      continue
    fi
    # Each file is run once (no mutation); a crash, sanitizer report or timeout exits non-zero.
    if "$dir/fuzz_$t" -timeout=30 -rss_limit_mb=2048 "${files[@]}" >"$dir/replay_$t.log" 2>&1; then
      echo "fuzz: $t: ${#files[@]} inputs replayed, no findings"
    else
      echo "fuzz: $t: a replayed input FAILED (log: $dir/replay_$t.log):" >&2
      grep -E "Running:|ERROR|FUZZ FINDING|SUMMARY|runtime error|terminate" "$dir/replay_$t.log" | tail -20 >&2 || true
      failed=1
    fi
  done
  return $failed
}

summary() {
  local ledger=build-fuzz/logs/ledger.tsv
  [ -f "$ledger" ] || { echo "fuzz: no runs recorded yet ($ledger)" >&2; exit 1; }
  awk -F'\t' '{ runs[$1]++; secs[$1] += $3; execs[$1] += $5; if ($4 != 0) finds[$1]++; if ($6 != "") { cov[$1] = $6; ft[$1] = $7 } }
    END { printf "%-14s %5s %8s %12s %-10s %-10s %s\n", "target", "runs", "seconds", "executions", "last cov", "last ft", "stopped by a finding";
          for (t in runs) printf "%-14s %5d %8d %12d %-10s %-10s %d\n", t, runs[t], secs[t], execs[t], cov[t], ft[t], finds[t] }' "$ledger"
}

case "${1:-}" in
  --summary) summary ;;
  --replay) replay "${2:-build-fuzz}" ;;
  --build) build "${2:-build-fuzz}" ;;
  -h|--help|"") usage ;;
  *)
    target=$1
    seconds=${2:-}
    is_target "$target" || { echo "fuzz: unknown target '$target' (${targets[*]})" >&2; exit 2; }
    [[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a whole number, got '$seconds'" >&2; exit 2; }
    dir=build-fuzz
    build "$dir"
    work="$dir/work/$target"            # everything libFuzzer finds; only what adds coverage is kept
    artifacts="$dir/artifacts/$target"
    mkdir -p "$work" "$artifacts" "$dir/logs" "fuzz/corpus/$target"
    log="$dir/logs/$target-$(date +%Y%m%d-%H%M%S).log"
    echo "fuzz: $target for $seconds s (log: $log, crashes: $artifacts/)"
    start=$(date +%s)
    set +e
    nice -n 10 "$dir/fuzz_$target" -max_total_time="$seconds" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 \
      -dict="fuzz/dict/$target.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
      "$work" "fuzz/corpus/$target" >"$log" 2>&1
    rc=$?
    set -e
    # One line per run in build-fuzz/logs/ledger.tsv: what fuzz/README.md's tables add up.
    last=$(grep -E "^#[0-9]+[[:space:]].*cov: [0-9]+ ft: [0-9]+" "$log" | tail -1 || true)
    execs=$(grep -oE "stat::number_of_executed_units: [0-9]+" "$log" | grep -oE "[0-9]+$" || true)
    execs=${execs:-$(echo "$last" | grep -oE "^#[0-9]+" | tr -d '#' || true)}
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$(date -d @"$start" +%F-%T)" "$(($(date +%s) - start))" \
      "$rc" "${execs:-0}" "$(echo "$last" | grep -oE "cov: [0-9]+" || true)" \
      "$(echo "$last" | grep -oE "ft: [0-9]+" || true)" >>"$dir/logs/ledger.tsv"
    tail -1 "$dir/logs/ledger.tsv"
    # The saved corpus grows only by inputs that reach new coverage (libFuzzer's merge).
    nice -n 10 "$dir/fuzz_$target" -merge=1 -max_len=$max_len -timeout=10 -rss_limit_mb=2048 \
      "fuzz/corpus/$target" "$work" >>"$log" 2>&1 || echo "fuzz: merge failed, see $log" >&2
    echo "fuzz: corpus fuzz/corpus/$target: $(find "fuzz/corpus/$target" -type f | wc -l) files, $(du -sh --apparent-size "fuzz/corpus/$target" | cut -f1)"
    if [ $rc -ne 0 ]; then
      echo "fuzz: $target stopped with a finding (exit $rc): see $log and $artifacts/" >&2
      grep -E "ERROR|FUZZ FINDING|SUMMARY|runtime error|terminate|Test unit written" "$log" | tail -10 >&2 || true
      exit $rc
    fi
    ;;
esac
