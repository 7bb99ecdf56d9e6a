#!/usr/bin/env bash
# thirty-eighth session, call G (0e63704): the database's new save under the old abuse. (1) two tuners at
# once on one database (the tiny set, f32 and f64 apart); (2) kill -9 in the middle of a tune, then the
# same command again (it resumes); (3) a database cut in half in place, then a tune. After each, the
# records in the file are counted.
set -u
START=$(date +%s)
o=$OUT/g; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
export JITSPARSE_CACHE=/tmp/cg
db=/tmp/cg/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
count() { python3 -c "import json,sys,collections; d=json.load(open(sys.argv[1])); c=collections.Counter((m['precision'], m['complete']) for m in d['matrices']); print('  records', len(d['matrices']), dict(c))" $db; }
/tmp/jitsparse tune --builtin tiny -p f32 -q -o $o/two_f32 > $o/two_f32.log 2>&1 & A=$!
/tmp/jitsparse tune --builtin tiny -p f64 -q -o $o/two_f64 > $o/two_f64.log 2>&1 & B=$!
wait $A; echo "two tuners: f32 rc $?"; wait $B; echo "two tuners: f64 rc $? at $(el) s"; count
/tmp/jitsparse tune --builtin small -p f32 -q -o $o/killed > $o/killed.log 2>&1 & K=$!
sleep 9; kill -9 $K; wait $K 2>/dev/null; echo "killed at $(el) s"; count
/tmp/jitsparse tune --builtin small -p f32 -q -o $o/resumed > $o/resumed.log 2>&1; echo "resumed rc $? at $(el) s"; grep -i "resum\|tuned in" $o/resumed.log | head -3; count
size=$(stat -c %s $db); truncate -s $(( size / 2 )) $db
/tmp/jitsparse tune --builtin tiny -p f32 -q -o $o/truncated > $o/truncated.log 2>&1; echo "after truncation rc $? at $(el) s"
grep -i "corrupt" $o/truncated.log | cut -c1-300; ls /tmp/cg/tuning/; count
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf g.tar.xz g && rm -rf g
