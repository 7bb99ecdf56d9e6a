#!/usr/bin/env bash
# twenty-eighth session, call B: the heavy-entry stage one (quaternion and block3 f64 at 1024 threads) with
# each search's wall time in tune.json (seconds.by_job): cold op n and op h tunes.
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/new.xz > /tmp/jitsparse_new; chmod +x /tmp/jitsparse_new
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1; nproc >> $o/gpu.txt
run() {  # binary op name timeout
  export JITSPARSE_CACHE=/tmp/jb_$3
  timeout $4 /tmp/jitsparse_$1 tune -q --op $2 -o $o/$3 > $o/$3.log 2>&1; echo "$3 rc $? at $(el) s"; grep "tuned in" $o/$3.log
  cp $JITSPARSE_CACHE/tuning/*.json $o/$3/db.json 2>/dev/null; rm -f $o/$3/tune.html; gzip $o/$3/*.json 2>/dev/null
}
run new n new_n 200
run new h new_h $(( 590 - $(el) ))
cd $OUT && tar czf b.tgz b && rm -rf b
