#!/usr/bin/env bash
# thirty-first session, call G: A + B reading a CSR leaf's entries coalesced (rows found by a binary
# search over 32 row starts) instead of a lane walking each row. GPU cases "gpu hisparse add*",
# memcheck and racecheck of the CSR case; bench-add op n with and without CSR leaves (warm, --builtin all).
set -u
START=$(date +%s)
o=$OUT/g; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 150 /tmp/gpu_tests -tc="gpu hisparse add*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -8
for tool in memcheck racecheck; do
  JITSPARSE_CACHE=/tmp/jj_tests timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/gpu_tests \
    -tc="gpu hisparse add: CSR*" > $o/sanitize_$tool.log 2>&1; echo "sanitize $tool rc $? at $(el) s"
  tail -1 $o/sanitize_$tool.log
done
JITSPARSE_CACHE=/tmp/c_g timeout 200 /tmp/jitsparse bench-add -o $o/add_n_csr > $o/add_n_csr.log 2>&1; echo "add csr rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/c_g timeout 200 /tmp/jitsparse bench-add --no-csr-leaves -o $o/add_n_coo > $o/add_n_coo.log 2>&1; echo "add coo rc $? at $(el) s"
xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf g.tgz g && rm -rf g
