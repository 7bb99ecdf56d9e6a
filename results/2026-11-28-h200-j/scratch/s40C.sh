#!/usr/bin/env bash
# fortieth session, call C (f03d949, H200): the set of at least 4x the L2 (`--builtin irregular`) never tuned,
# learnt from call B's database (the main set + the training set, evaluated): the model's first choices;
# then `tune --quick` (the model's candidates in rounds) and its picks; then the full tune and its winners.
# Every bench cold (L2 flushed before each single launch), cuSPARSE's best form in the same run.
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
db=NVIDIA_H200_sm_90_132sm.json
export JITSPARSE_CACHE=/tmp/c; rm -rf $JITSPARSE_CACHE; mkdir -p $JITSPARSE_CACHE/tuning
xz -dc carry/db_b.json.xz > $JITSPARSE_CACHE/tuning/$db
b() { local name=$1; shift; timeout 150 /tmp/jitsparse bench -q --no-tune --builtin irregular --l2 cold "$@" -o $o/$name > $o/$name.log 2>&1; echo "$name rc $? at $(el) s"; }
b irr_model --samples 31
timeout 150 /tmp/jitsparse tune --quick --builtin irregular -o $o/tune_quick > $o/tune_quick.log 2>&1; echo "tune quick rc $? at $(el) s"
grep "tuned in" $o/tune_quick.log
b irr_quick --samples 31
if [ $(el) -lt 400 ]; then
  timeout 150 /tmp/jitsparse tune --builtin irregular -o $o/tune_full > $o/tune_full.log 2>&1; echo "tune full rc $? at $(el) s"
  grep "tuned in" $o/tune_full.log
  b irr_tuned --samples 31
fi
xz -c $JITSPARSE_CACHE/tuning/$db > $o/db_c.json.xz
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf c.tar.xz c && rm -rf c
