#!/usr/bin/env bash
# twenty-sixth session, call H: cold `tune --op h` of the main set with the tighter atomic-kind pruning, as
# the first tune on a fresh host (call G ran it second, after the committed pruning's tune)
set -u
o=$OUT/h; mkdir -p $o
t0=$(date +%s)
JITSPARSE_CACHE=/tmp/jh_new carry/jitsparse tune -q --op h -o $o/tune_h_new > $o/tune_h_new.log 2>&1
echo "tune op h new (first) rc $? $(( $(date +%s)-t0 )) s"; grep "tuned in" $o/tune_h_new.log
cd $OUT && tar czf h.tgz h && rm -rf h
