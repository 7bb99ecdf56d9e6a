#!/usr/bin/env bash
# thirty-seventh session, call D (code e614293, the patch of call C not kept): bench-add --b-pattern same,
# then the A + B GPU tests, within the session's last device minutes.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/c_a timeout 125 /tmp/jitsparse bench-add --b-pattern same -o $o/add_same > $o/add_same.log 2>&1; echo "add same rc $? at $(el) s"; tail -3 $o/add_same.log | head -2
JITSPARSE_CACHE=/tmp/jj_tests timeout $(( 200 - $(el) )) /tmp/gpu_tests -tc="gpu hisparse add*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -6
xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf d.tar.xz d && rm -rf d
