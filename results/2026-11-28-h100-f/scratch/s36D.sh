#!/usr/bin/env bash
# thirty-sixth session, call D: call C's code with the leaf kernel's bitmap walk restored (a lane's own
# words; the word-by-word walk kept for the inner levels only) and bench-add --inner-items. "gpu hisparse
# add*"; bench-add op n (warm, --builtin all): this code (auto), the start code (a6d5ba0), this code with
# every inner level a warp an item; memcheck and racecheck; Nsight Compute on laplacian_large.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 150 /tmp/gpu_tests -tc="gpu hisparse add*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
JITSPARSE_CACHE=/tmp/c_new timeout 165 /tmp/jitsparse bench-add -o $o/add_n > $o/add_n.log 2>&1; echo "add new rc $? at $(el) s"
tail -3 $o/add_n.log
JITSPARSE_CACHE=/tmp/c_base timeout 165 /tmp/jitsparse_base bench-add -o $o/add_n_base > $o/add_n_base.log 2>&1; echo "add base rc $? at $(el) s"
tail -3 $o/add_n_base.log
JITSPARSE_CACHE=/tmp/c_new timeout 165 /tmp/jitsparse bench-add --inner-items warp -o $o/add_n_warp > $o/add_n_warp.log 2>&1; echo "add warp rc $? at $(el) s"
tail -3 $o/add_n_warp.log
JITSPARSE_CACHE=/tmp/jj_tests timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/gpu_tests \
  -tc="gpu hisparse add: every*,gpu hisparse add: CSR*,gpu hisparse add: leaves*" > $o/sanitize_memcheck.log 2>&1; echo "memcheck rc $? at $(el) s"
tail -1 $o/sanitize_memcheck.log
JITSPARSE_CACHE=/tmp/jj_tests timeout 45 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/gpu_tests \
  -tc="gpu hisparse add: every*,gpu hisparse add: CSR*" > $o/sanitize_racecheck.log 2>&1; echo "racecheck rc $? at $(el) s"
tail -1 $o/sanitize_racecheck.log
[ $(el) -lt 530 ] && { JITSPARSE_CACHE=/tmp/c_new BIN=/tmp timeout 50 bash scripts/profile_add.sh $o/prof laplacian_large f32 n | grep -v "^    "; echo "profile at $(el) s"; }
xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf d.tar.xz d && rm -rf d
