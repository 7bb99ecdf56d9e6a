#!/usr/bin/env bash
# thirty-third session, call E: the final kernel (the tail scan shared by the per-leaf and batched COO steps,
# scan_tails): GPU cases of the batched and small-leaf hisparse kernels (every setup of the list, three entry
# types) and of the hisparse layouts for quaternions and 3x3 blocks.
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
JITSPARSE_CACHE=/tmp/jj_tests timeout 200 /tmp/gpu_tests -tc="gpu spmv: hisparse small leaves per lane and batched*,gpu spmv: hisparse layouts (quaternion),gpu spmv: hisparse layouts (block3),gpu spmv: hisparse layouts (real)" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
cd $OUT && tar czf e.tgz e && rm -rf e
