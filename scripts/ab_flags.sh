#!/usr/bin/env bash
# A/B of kernel template options: the variants listed in a file (one per line, '#' comments), timed cold
# over a built-in set by one binary, once per NVRTC flag set (JITSPARSE_NVRTC_FLAGS; each set its own
# cubin cache, since the flags change the cubins), so template experiments compare in one call.
# Usage: scripts/ab_flags.sh OUT_DIR VARIANT_FILE NAME=FLAGS...   (FLAGS may be empty: NAME=)
# $BIN (default carry/jitsparse), $BUILTIN (default all), $BENCH_ARGS (more bench options, e.g. --op t). Compare with scripts/ab_compare.py OUT_DIR/*.log.
set -uo pipefail
out=$1 list=$2; shift 2
bin=${BIN:-carry/jitsparse}
mkdir -p "$out"
source "$(dirname "$0")/ab_variant_list.sh"
read_variant_list "$list"
for pair in "$@"; do
  name=${pair%%=*} flags=${pair#*=}
  JITSPARSE_NVRTC_FLAGS="$flags" JITSPARSE_CACHE=/tmp/ab-flags-cache-$name \
    "$bin" bench --l2 cold -q ${BENCH_ARGS:-} --builtin "${BUILTIN:-all}" "${variants[@]}" -o "$out/ab_$name" >"$out/ab_$name.log" 2>&1
  echo "== $name ($flags): rc $?"
done
