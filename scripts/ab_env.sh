#!/usr/bin/env bash
# A/B of run-time knobs and binaries: the variants listed in a file (one per line, '#' comments), timed cold
# over built-in matrices once per configuration NAME=ASSIGNMENTS, where ASSIGNMENTS are space-separated
# VAR=value environment settings for that run; BIN=path among them picks another jitsparse binary (e.g. one
# built from the previous commit). Each configuration keeps its own cubin cache and tuning database.
# Usage: scripts/ab_env.sh OUT_DIR VARIANT_FILE NAME=ASSIGNMENTS...   (ASSIGNMENTS may be empty: NAME=)
# $BIN (default carry/jitsparse), $BUILTINS (space-separated built-in names or sets, default all),
# $BENCH_ARGS (more bench options). Compare with scripts/ab_compare.py OUT_DIR/ab_BASE_*/bench.jsonl ...
set -uo pipefail
out=$1 list=$2; shift 2
mkdir -p "$out"
source "$(dirname "$0")/ab_variant_list.sh"
read_variant_list "$list"
for builtin in ${BUILTINS:-all}; do
  for pair in "$@"; do
    name=${pair%%=*} assignments=${pair#*=}
    bin=${BIN:-carry/jitsparse}
    env_args=()
    for a in $assignments; do
      case $a in BIN=*) bin=${a#BIN=} ;; *) env_args+=("$a") ;; esac
    done
    t0=$(date +%s)
    env "${env_args[@]}" JITSPARSE_CACHE=/tmp/ab-env-cache-$name \
      "$bin" bench --l2 cold -q ${BENCH_ARGS:-} --builtin "$builtin" "${variants[@]}" -o "$out/ab_${name}_$builtin" \
      >"$out/ab_${name}_$builtin.log" 2>&1
    echo "== $builtin $name ($assignments): rc $?, $(( $(date +%s) - t0 )) s"
  done
done
