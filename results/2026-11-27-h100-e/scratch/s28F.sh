#!/usr/bin/env bash
# twenty-eighth session, call F: the full GPU suite on the final code (7a72a5a).
set -u
START=$(date +%s)
o=$OUT/f; mkdir -p $o
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
JITSPARSE_CACHE=/tmp/jf timeout 560 /tmp/gpu_tests > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(( $(date +%s)-START )) s"
grep -E "variants|verified|launches" $o/gpu_tests.log | tail -5; tail -4 $o/gpu_tests.log
cd $OUT && tar czf f.tgz f && rm -rf f
