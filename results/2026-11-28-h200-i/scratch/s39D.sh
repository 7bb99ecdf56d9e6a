#!/usr/bin/env bash
# thirty-ninth session, call D (c0b8446, H200): issue 12's set of at least 4x the L2 (`--builtin irregular`,
# 240-265 MB in f64; this L2 is 60 MB): first never tuned (the model's picks from call A's main database),
# then tuned and benched cold; then `tune --op t` of the main set as a true cold tune (fresh cubin cache).
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
db=NVIDIA_H200_sm_90_132sm.json
mkdir -p /tmp/c_main/tuning; xz -dc carry/db_n.json.xz > /tmp/c_main/tuning/$db
export JITSPARSE_CACHE=/tmp/c_main
b() { local name=$1; shift; timeout 200 /tmp/jitsparse bench -q --no-tune "$@" -o $o/$name > $o/$name.log 2>&1; echo "$name rc $? at $(el) s"; }
b irr_model --builtin irregular --l2 cold
timeout 240 /tmp/jitsparse tune --builtin irregular -o $o/tune_irr > $o/tune_irr.log 2>&1; echo "tune irregular rc $? at $(el) s"
grep "tuned in" $o/tune_irr.log
b irr_tuned --builtin irregular --l2 cold
if [ $(el) -lt 330 ]; then
  c=/tmp/c_t; rm -rf $c; mkdir -p $c/tuning; cp /tmp/c_main/tuning/$db $c/tuning/$db
  JITSPARSE_CACHE=$c timeout 200 /tmp/jitsparse tune --op t -o $o/tune_t > $o/tune_t.log 2>&1; echo "tune t rc $? at $(el) s"
  grep "tuned in" $o/tune_t.log
fi
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf d.tar.xz d && rm -rf d
