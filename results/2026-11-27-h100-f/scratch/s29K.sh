#!/usr/bin/env bash
# twenty-ninth session, call K: the final code after the review (the generator's schedule reader without
# strings, Schedule::read in the model, column_scatter). GPU cases of the tuner, the sorted sells, the
# renumbered variants and one entry type's full spmv case, with the verified-variant summary.
set -u
START=$(date +%s)
o=$OUT/k; mkdir -p $o
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jk timeout 330 /tmp/gpu_tests -tc="gpu tuner*,gpu spmv: sorted sell*,gpu spmv: renumbered*,gpu spmv: quaternion,gpu spmv: summary" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(( $(date +%s)-START )) s"
grep -E "verified|test cases|assertions" $o/gpu_tests.log | tail -4
cd $OUT && tar czf k.tgz k && rm -rf k
