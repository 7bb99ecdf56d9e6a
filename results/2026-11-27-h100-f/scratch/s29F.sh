#!/usr/bin/env bash
# twenty-ninth session, call F: the full GPU suite on the final code.
set -u
START=$(date +%s)
o=$OUT/f; mkdir -p $o
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jf timeout 570 /tmp/gpu_tests > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(( $(date +%s)-START )) s"
grep -E "variants|verified|launches" $o/gpu_tests.log | tail -5; tail -4 $o/gpu_tests.log
cd $OUT && tar czf f.tgz f && rm -rf f
