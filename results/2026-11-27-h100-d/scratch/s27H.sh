#!/usr/bin/env bash
# twenty-seventh session, call H: the full GPU suite on the final code.
set -u
START=$(date +%s)
o=$OUT/h; mkdir -p $o
JITSPARSE_CACHE=/tmp/jh timeout 540 carry/jitsparse_gpu_tests > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(( $(date +%s)-START )) s"
grep -E "variants|verified|launches" $o/gpu_tests.log | tail -5; tail -4 $o/gpu_tests.log
cd $OUT && tar czf h.tgz h && rm -rf h
