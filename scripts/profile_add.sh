#!/usr/bin/env bash
# Nsight Compute profile of HiSparse A + B (bench-add's kernels: the inner levels, the leaf level's one-lane
# and warp kernels), one built-in matrix and precision at a time, for "what limits A + B" (NOTES.md, issue 9).
# Writes OUT_DIR/<matrix>_<prec>_<op>.csv (ncu --csv --page details) and prints one summary line per kernel
# (scripts/ncu_summary.py --stalls). The first launches are the checked addition's, one kernel per level.
# Usage: scripts/profile_add.sh OUT_DIR MATRIX [f32|f64] [n|t|h]      (BIN: the folder of jitsparse)
set -uo pipefail
out=$1 matrix=$2 prec=${3:-f32} op=${4:-n}
bin=${BIN:-carry}
mkdir -p "$out"
csv="$out/${matrix}_${prec}_${op}.csv"
ncu --clock-control none --kernel-name-base demangled -k "regex:jitsparse::hisparse_add_" -c "${LAUNCHES:-6}" \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  --section WarpStateStats --csv --page details \
  "$bin/jitsparse" bench-add --builtin "$matrix" -p "$prec" --op "$op" --samples 1 -o /tmp/prof_add \
  >"$csv" 2>"$out/${matrix}_${prec}_${op}.err"
echo "== $matrix $prec op $op: rc $?"
python3 "$(dirname "$0")/ncu_summary.py" "$csv" --stalls
