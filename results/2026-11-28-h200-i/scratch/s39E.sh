#!/usr/bin/env bash
# thirty-ninth session, call E: the full GPU suite with its NVRTC compiles in worker processes (tests/gpu/
# main.cpp), fresh cubin cache; calls A + B took 300 + 219 s in threads on this kind of host.
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
nproc
JITSPARSE_CACHE=/tmp/c_tests timeout 285 /tmp/gpu_tests > $o/gpu_tests.log 2>&1; echo "gpu suite rc $? at $(el) s"
grep -E "verified|test cases|assertions|CRASH|FAILED|ERROR" $o/gpu_tests.log | tail -8
cd $OUT && tar cJf e.tar.xz e && rm -rf e
