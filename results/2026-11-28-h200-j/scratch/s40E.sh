#!/usr/bin/env bash
# fortieth session, call E (561b73d): the set of at least 4x the L2 never tuned, with the model that reads
# ordered neighbours of a scattered query as the query renumbered: learnt from call B's database (main +
# training set), then from call A's main-set database alone (what a user has after the main job); cold.
# Then the tuner's and the model's GPU cases.
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
db=NVIDIA_H200_sm_90_132sm.json
for src in b main; do
  export JITSPARSE_CACHE=/tmp/c_$src; rm -rf $JITSPARSE_CACHE; mkdir -p $JITSPARSE_CACHE/tuning
  xz -dc carry/db_$src.json.xz > $JITSPARSE_CACHE/tuning/$db
  timeout 150 /tmp/jitsparse bench -q --no-tune --builtin irregular --l2 cold --samples 31 -o $o/irr_model_$src > $o/irr_model_$src.log 2>&1; echo "irr_model_$src rc $? at $(el) s"
done
JITSPARSE_CACHE=/tmp/c_tests timeout 200 /tmp/gpu_tests -tc='gpu tuner*' > $o/gpu_cases.log 2>&1; echo "gpu cases rc $? at $(el) s"
grep -E "test cases|assertions" $o/gpu_cases.log | tail -2
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf e.tar.xz e && rm -rf e
