#!/usr/bin/env bash
# fortieth session, call A (f03d949, H200): the main job cold, then the selection model's training set
# (`tune --builtin train`, budgeted so the database comes back), for issue 11's evaluation on this GPU.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
nvidia-smi --query-gpu=name,memory.total --format=csv > $o/gpu.txt 2>&1; nproc >> $o/gpu.txt; cat $o/gpu.txt
c=/tmp/c; rm -rf $c
JITSPARSE_CACHE=$c timeout 170 /tmp/jitsparse tune -o $o/tune_n > $o/tune_n.log 2>&1; echo "tune n rc $? at $(el) s"
grep "tuned in" $o/tune_n.log
cp $c/tuning/*.json /tmp/db_main.json
left=$(( 560 - $(el) ))
JITSPARSE_CACHE=$c timeout $((left+20)) /tmp/jitsparse tune --builtin train --budget ${left}s -o $o/tune_train > $o/tune_train.log 2>&1; echo "tune train rc $? at $(el) s"
grep -E "tuned in|budget|records" $o/tune_train.log | tail -4
for f in $c/tuning/*.json; do xz -c $f > $o/db.json.xz; done
xz -c /tmp/db_main.json > $o/db_main.json.xz
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf a.tar.xz a && rm -rf a
