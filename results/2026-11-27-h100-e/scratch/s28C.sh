#!/usr/bin/env bash
# twenty-eighth session, call C: tune time A/B on one host. base = call B's binary (heavy-entry stage one,
# by_job seconds); new = base + graphs about a sample long (time_in_graph graph_ms) + the next matrix's
# stage one packed while this one is tuned (Tuner::prepack_following). GPU cases of the tuner and the
# graph timer (new code) first.
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in base new; do xz -dc carry/$b.xz > /tmp/jitsparse_$b; chmod +x /tmp/jitsparse_$b; done
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1; nproc >> $o/gpu.txt
JITSPARSE_CACHE=/tmp/jc_tests timeout 170 /tmp/gpu_tests -tc="gpu tuner*,time_in_graph*" -s > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"; grep -E "memset of 96|test cases|assertions|FAILED|ERROR" $o/gpu_tests.log | head
run() {  # binary op name timeout
  export JITSPARSE_CACHE=/tmp/jc_$3
  timeout $4 /tmp/jitsparse_$1 tune -q --op $2 -o $o/$3 > $o/$3.log 2>&1; echo "$3 rc $? at $(el) s"; grep "tuned in" $o/$3.log
  cp $JITSPARSE_CACHE/tuning/*.json $o/$3/db.json 2>/dev/null; rm -f $o/$3/tune.html; gzip $o/$3/*.json 2>/dev/null
}
run new n new_n 150
run base n base_n 150
run new h new_h 160
left=$(( 585 - $(el) )); if [ $left -gt 120 ]; then run base h base_h $left; fi
cd $OUT && tar czf c.tgz c && rm -rf c
