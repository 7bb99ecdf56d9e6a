#!/usr/bin/env bash
# Nsight Compute, instruction level: one kernel launch of one variant on one built-in matrix, with the
# full section set; writes OUT_DIR/NAME_sass.csv (per SASS instruction: executions, stall samples) and
# OUT_DIR/NAME_details.csv. For finding where a kernel spends its instructions and stalls.
# Usage: scripts/ncu_source.sh OUT_DIR NAME BINARY MATRIX PREC VARIANT [KERNEL_REGEX]
set -uo pipefail
out=$1 name=$2 bin=$3 matrix=$4 prec=$5 variant=$6 kernel=${7:-"(spmv|hola_spmv|hola_scatter)<"}
mkdir -p "$out"
ncu --clock-control none --kernel-name-base demangled -k "regex:jitsparse::$kernel" -c 1 --set full \
  --import-source no -o "/tmp/ncu_$name" -f \
  "$bin" bench -q --builtin "$matrix" -p "$prec" --samples 3 --variant "$variant" -o "/tmp/ncu_bench_$name" \
  >"$out/${name}_run.log" 2>&1
echo "== $name: rc $?"
ncu -i "/tmp/ncu_$name.ncu-rep" --page source --csv --print-source sass >"$out/${name}_sass.csv" 2>&1
ncu -i "/tmp/ncu_$name.ncu-rep" --page details --csv >"$out/${name}_details.csv" 2>&1
