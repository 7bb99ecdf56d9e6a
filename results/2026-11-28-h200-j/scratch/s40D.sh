#!/usr/bin/env bash
# fortieth session, call D (f03d949 + the fix: run_variants packs what it runs): the tuner's GPU cases with
# the new one (a full search over another search's renumbered measurements); then the full tune of the
# R-MAT graph over call C's database, where its quick records ended `tune --builtin irregular` in map::at;
# then that graph benched cold.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
JITSPARSE_CACHE=/tmp/c_tests timeout 300 /tmp/gpu_tests -tc='gpu tuner*' > $o/gpu_tuner.log 2>&1; echo "gpu tuner rc $? at $(el) s"
grep -E "test cases|assertions|FAILED|ERROR" $o/gpu_tuner.log | tail -6
db=NVIDIA_H200_sm_90_132sm.json
export JITSPARSE_CACHE=/tmp/c; rm -rf $JITSPARSE_CACHE; mkdir -p $JITSPARSE_CACHE/tuning
xz -dc carry/db_c.json.xz > $JITSPARSE_CACHE/tuning/$db
g=irregular_graph_rmat_random_260mb
timeout 150 /tmp/jitsparse tune --builtin $g -o $o/tune_graph > $o/tune_graph.log 2>&1; echo "tune graph rc $? at $(el) s"
grep -E "tuned in|error" $o/tune_graph.log | head -3
if [ $(el) -lt 420 ]; then
  timeout 100 /tmp/jitsparse bench -q --no-tune --builtin $g --l2 cold --samples 31 -o $o/graph_tuned > $o/graph_tuned.log 2>&1; echo "bench graph rc $? at $(el) s"
fi
xz -c $JITSPARSE_CACHE/tuning/$db > $o/db_d.json.xz
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf d.tar.xz d && rm -rf d
