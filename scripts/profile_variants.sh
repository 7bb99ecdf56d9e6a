#!/usr/bin/env bash
# Nsight Compute profile of given variants, one built-in matrix at a time (cold: ncu flushes the caches
# before every replay pass), for "what limits each winner" (NOTES.md). Each line of LIST_FILE:
#   <built-in matrix> <f32|f64> <variant>
# Writes OUT_DIR/<matrix>_<prec>_<n>.csv (ncu --csv --page details: the first launches of the variant's
# kernels) and prints one summary line per kernel (scripts/ncu_summary.py).
# Usage: scripts/profile_variants.sh OUT_DIR LIST_FILE
set -uo pipefail
out=$1 list=$2
bin=${BIN:-carry}
mkdir -p "$out"
n=0
while read -r matrix prec variant; do
  [[ -z "$matrix" || "$matrix" == \#* ]] && continue
  n=$((n + 1))
  csv="$out/${matrix}_${prec}_$n.csv"
  ncu --clock-control none --kernel-name-base demangled -k "regex:jitsparse::(spmv|hola_spmv|hola_prepare|permute_vector)<" -c "${LAUNCHES:-4}" \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --csv --page details \
    "$bin/jitsparse" bench -q --builtin "$matrix" -p "$prec" --samples 3 --variant "$variant" -o "/tmp/prof_bench" \
    >"$csv" 2>"$out/${matrix}_${prec}_$n.err"
  echo "== $n $matrix $prec $variant: rc $?"
done <"$list"
