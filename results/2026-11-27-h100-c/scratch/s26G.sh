#!/usr/bin/env bash
# twenty-sixth session, call G: cold `tune --op h` of the main set, the committed atomic-kind pruning
# (keep 1.5, 2 threads per row per layout: carry/jitsparse_old) against the tighter one (1.1, 1), same host
set -u
START=$(date +%s)
o=$OUT/g; mkdir -p $o
for cfg in old new; do
  bin=carry/jitsparse; [ $cfg = old ] && bin=carry/jitsparse_old
  left=$((590 - ($(date +%s) - START)))
  t0=$(date +%s)
  JITSPARSE_CACHE=/tmp/jg_$cfg timeout $left $bin tune -q --op h -o $o/tune_h_$cfg > $o/tune_h_$cfg.log 2>&1
  echo "tune op h $cfg rc $? $(( $(date +%s)-t0 )) s"; grep "tuned in" $o/tune_h_$cfg.log
  cp /tmp/jg_$cfg/tuning/*.json $o/db_$cfg.json 2>/dev/null; gzip -f $o/db_$cfg.json 2>/dev/null
done
cd $OUT && tar czf g.tgz g && rm -rf g
