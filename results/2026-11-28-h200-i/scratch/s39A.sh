#!/usr/bin/env bash
# thirty-ninth session, call A (c0b8446, the device is now an H200): the full GPU suite on the final code of
# session 38; a kill -9 in the middle of a tune, then the same tune again (must resume, nothing lost); the
# main job (`jitsparse tune`) cold on this GPU, timed; its database comes back for call B.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi > $o/gpu.txt 2>&1; nproc >> $o/gpu.txt; head -3 $o/gpu.txt; grep -i h200 $o/gpu.txt | head -2
JITSPARSE_CACHE=/tmp/c_tests timeout 300 /tmp/gpu_tests > $o/gpu_tests.log 2>&1; echo "gpu suite rc $? at $(el) s"
grep -E "verified|test cases|assertions" $o/gpu_tests.log | tail -4
# kill -9 mid-tune, then resume
k=/tmp/c_kill; rm -rf $k
JITSPARSE_CACHE=$k /tmp/jitsparse tune --builtin small > $o/kill_first.log 2>&1 & pid=$!
sleep 14; kill -9 $pid; wait $pid 2>/dev/null; echo "killed at $(el) s"; tail -2 $o/kill_first.log
ls -la $k/tuning/ 2>&1 | tail -3
JITSPARSE_CACHE=$k timeout 120 /tmp/jitsparse tune --builtin small > $o/kill_resume.log 2>&1; echo "resume rc $? at $(el) s"
grep -E -i "resum|already|tuned in|error|corrupt" $o/kill_resume.log | head -8
JITSPARSE_CACHE=$k timeout 60 /tmp/jitsparse tune --builtin small > $o/kill_third.log 2>&1; echo "third rc $? at $(el) s"; grep -E "tuned in|measur" $o/kill_third.log | tail -3
# the main job cold
c=/tmp/c_main; rm -rf $c
if [ $(el) -lt 420 ]; then
JITSPARSE_CACHE=$c timeout 170 /tmp/jitsparse tune -o $o/tune_n > $o/tune_n.log 2>&1; echo "tune n rc $? at $(el) s"
grep "tuned in" $o/tune_n.log
for f in $c/tuning/*.json; do echo "db $f"; xz -c $f > $o/db_n.json.xz; done
fi
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf a.tar.xz a && rm -rf a
