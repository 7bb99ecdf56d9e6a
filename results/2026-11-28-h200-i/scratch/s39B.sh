#!/usr/bin/env bash
# thirty-ninth session, call B (c0b8446, H200): the rest of the full GPU suite (call A's 300 s ended in its
# 40th case); then the main set benched against cuSPARSE from call A's cold tune: cold (L2 flushed) and
# warm; then tests/data (= ../shared/data) never tuned, the model's first choice, warm.
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
db=NVIDIA_H200_sm_90_132sm.json
mkdir -p /tmp/c_main/tuning; xz -dc carry/db_n.json.xz > /tmp/c_main/tuning/$db
JITSPARSE_CACHE=/tmp/c_tests timeout 330 /tmp/gpu_tests --first=40 > $o/gpu_tests_rest.log 2>&1; echo "gpu suite rest rc $? at $(el) s"
grep -E "verified|test cases|assertions|CRASH|FAILED" $o/gpu_tests_rest.log | tail -6
export JITSPARSE_CACHE=/tmp/c_main
b() { local name=$1; shift; timeout 150 /tmp/jitsparse bench -q --no-tune "$@" -o $o/$name > $o/$name.log 2>&1; echo "$name rc $? at $(el) s"; }
b bench_cold --l2 cold
b bench_warm --l2 warm
[ $(el) -lt 500 ] && b bench_data tests/data/real tests/data/graph tests/data/complex@complex
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf b.tar.xz b && rm -rf b
