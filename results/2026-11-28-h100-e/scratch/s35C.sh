#!/usr/bin/env bash
# thirty-fifth session, call C (the code committed): A + B with pairs of one-entry leaves a lane each
# (hisparse_add_leaf_small) and the previous warp kernel for the rest (hisparse_add_leaf_big, items from
# the small kernel's list). GPU cases "gpu hisparse add*"; bench-add op n (warm, --builtin all) with this
# code and the start code (1b52a31) on the same host; memcheck and racecheck; the GPU tuner cases (the
# thirty-fourth session's last two commits ran on the CPU only).
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 120 /tmp/gpu_tests -tc="gpu hisparse add*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
JITSPARSE_CACHE=/tmp/c_new timeout 165 /tmp/jitsparse bench-add -o $o/add_n > $o/add_n.log 2>&1; echo "add new rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/c_base timeout 165 /tmp/jitsparse_base bench-add -o $o/add_n_base > $o/add_n_base.log 2>&1; echo "add base rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/jj_tests timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/gpu_tests \
  -tc="gpu hisparse add: every*,gpu hisparse add: CSR*,gpu hisparse add: leaves*" > $o/sanitize_memcheck.log 2>&1; echo "memcheck rc $? at $(el) s"
tail -1 $o/sanitize_memcheck.log
JITSPARSE_CACHE=/tmp/jj_tests timeout 40 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/gpu_tests \
  -tc="gpu hisparse add: every*,gpu hisparse add: CSR*" > $o/sanitize_racecheck.log 2>&1; echo "racecheck rc $? at $(el) s"
tail -1 $o/sanitize_racecheck.log
left=$(( 585 - $(el) ))
JITSPARSE_CACHE=/tmp/jj_tests timeout $left /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tuner.log 2>&1; echo "gpu tuner rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tuner.log | head -12
xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf c.tar.xz c && rm -rf c
