#!/usr/bin/env bash
# thirty-fifth session, call A: A + B with the leaf level rewritten (hisparse_add_leaf.cuh: one-entry pairs a
# lane each; the rest a warp each with batched loads and three bitmaps). GPU cases "gpu hisparse add*";
# memcheck and racecheck; bench-add op n (warm, --builtin all) with this code and with the start code
# (1b52a31, jitsparse_base) on the same host; the big kernel at 24 warps an SM (-D) on the large set.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 170 /tmp/gpu_tests -tc="gpu hisparse add*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
JITSPARSE_CACHE=/tmp/c_new timeout 200 /tmp/jitsparse bench-add -o $o/add_n > $o/add_n.log 2>&1; echo "add new rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/c_base timeout 130 /tmp/jitsparse_base bench-add --builtin large -o $o/add_n_base > $o/add_n_base.log 2>&1; echo "add base rc $? at $(el) s"
JITSPARSE_NVRTC_FLAGS=-DJITSPARSE_ADD_WARPS_PER_SM=24 JITSPARSE_CACHE=/tmp/c_24 timeout 100 /tmp/jitsparse bench-add --builtin large -o $o/add_n_w24 > $o/add_n_w24.log 2>&1; echo "add w24 rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/jj_tests timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/gpu_tests \
  -tc="gpu hisparse add: every*,gpu hisparse add: CSR*,gpu hisparse add: leaves*" > $o/sanitize_memcheck.log 2>&1; echo "memcheck rc $? at $(el) s"
tail -1 $o/sanitize_memcheck.log
JITSPARSE_CACHE=/tmp/jj_tests timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/gpu_tests \
  -tc="gpu hisparse add: every*,gpu hisparse add: CSR*" > $o/sanitize_racecheck.log 2>&1; echo "racecheck rc $? at $(el) s"
tail -1 $o/sanitize_racecheck.log
xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf a.tar.xz a && rm -rf a
