#!/usr/bin/env bash
# thirty-sixth session, call A: A + B with one-wave grids (occupancy query) and the inner kernel loading 8
# children a lane ahead. "gpu hisparse add*"; memcheck and racecheck; bench-add op n (warm, --builtin all)
# of this code and of the start code (a6d5ba0) on the same host; then this code with the big kernel bound to
# 48 warps an SM (-DJITSPARSE_ADD_BIG_WARPS_PER_SM=48) on the large set.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 120 /tmp/gpu_tests -tc="gpu hisparse add*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
JITSPARSE_CACHE=/tmp/c_new timeout 165 /tmp/jitsparse bench-add -o $o/add_n > $o/add_n.log 2>&1; echo "add new rc $? at $(el) s"
tail -3 $o/add_n.log
JITSPARSE_CACHE=/tmp/c_base timeout 165 /tmp/jitsparse_base bench-add -o $o/add_n_base > $o/add_n_base.log 2>&1; echo "add base rc $? at $(el) s"
tail -3 $o/add_n_base.log
JITSPARSE_CACHE=/tmp/jj_tests timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/gpu_tests \
  -tc="gpu hisparse add: every*,gpu hisparse add: CSR*,gpu hisparse add: leaves*" > $o/sanitize_memcheck.log 2>&1; echo "memcheck rc $? at $(el) s"
tail -1 $o/sanitize_memcheck.log
JITSPARSE_CACHE=/tmp/jj_tests timeout 40 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/gpu_tests \
  -tc="gpu hisparse add: every*" > $o/sanitize_racecheck.log 2>&1; echo "racecheck rc $? at $(el) s"
tail -1 $o/sanitize_racecheck.log
left=$(( 585 - $(el) ))
JITSPARSE_NVRTC_FLAGS=-DJITSPARSE_ADD_BIG_WARPS_PER_SM=48 JITSPARSE_CACHE=/tmp/c_48 timeout $left /tmp/jitsparse bench-add --builtin large -o $o/add_n_48 > $o/add_n_48.log 2>&1; echo "add 48 rc $? at $(el) s"
tail -3 $o/add_n_48.log
xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf a.tar.xz a && rm -rf a
