#!/usr/bin/env bash
# fortieth session, call B (f03d949, H200): issue 11's evaluation on this GPU from call A's database
# (main set + training set): leave one matrix / one family out, then learn from the main set only; the
# predictions the searches never timed are timed here (budgeted; the database keeps what was timed).
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
c=/tmp/c; rm -rf $c; mkdir -p $c/tuning
xz -dc carry/db_a.json.xz > $c/tuning/NVIDIA_H200_sm_90_132sm.json
JITSPARSE_CACHE=$c timeout 400 /tmp/jitsparse evaluate --holdout both --budget 330s -o $o/ev_both > $o/ev_both.log 2>&1; echo "evaluate both rc $? at $(el) s"
grep -A6 '^predictor' $o/ev_both.log | head -20
left=$(( 540 - $(el) ))
JITSPARSE_CACHE=$c timeout $((left+30)) /tmp/jitsparse evaluate --holdout main --budget ${left}s -o $o/ev_main > $o/ev_main.log 2>&1; echo "evaluate main rc $? at $(el) s"
grep -A6 '^predictor' $o/ev_main.log | head -10
xz -c $c/tuning/NVIDIA_H200_sm_90_132sm.json > $o/db_b.json.xz
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf b.tar.xz b && rm -rf b
