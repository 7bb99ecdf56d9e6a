#!/usr/bin/env bash
# thirty-sixth session, call C: call B's code with an inner level of few items taken a block an item
# (hisparse_add_inner<..., true>, where the level's items fit one wave of 512-thread blocks) and the bitmap's
# cells visited word by word (neighbouring lanes, neighbouring ranks: coalesced stores). "gpu hisparse add*"
# (every sum with both schedules forced); memcheck, racecheck, synccheck; bench-add op n (warm, --builtin all)
# of this code and of the start code (a6d5ba0) on the same host; Nsight Compute on helmholtz_tiny.
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
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
JITSPARSE_CACHE=/tmp/jj_tests timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/gpu_tests \
  -tc="gpu hisparse add: every*,gpu hisparse add: CSR*,gpu hisparse add: leaves*" > $o/sanitize_memcheck.log 2>&1; echo "memcheck rc $? at $(el) s"
tail -1 $o/sanitize_memcheck.log
for tool in racecheck synccheck; do
JITSPARSE_CACHE=/tmp/jj_tests timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/gpu_tests \
  -tc="gpu hisparse add: every*,gpu hisparse add: CSR*" > $o/sanitize_$tool.log 2>&1; echo "$tool rc $? at $(el) s"
tail -1 $o/sanitize_$tool.log
done
for m in helmholtz_tiny laplacian_large; do
  [ $(el) -gt 520 ] && break
  JITSPARSE_CACHE=/tmp/c_new BIN=/tmp timeout 60 bash scripts/profile_add.sh $o/prof $m f32 n | grep -v "^    "; echo "profile $m at $(el) s"
done
xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf c.tar.xz c && rm -rf c
