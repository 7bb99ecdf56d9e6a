#!/usr/bin/env bash
# twenty-eighth session, call E: the final tune-time code (call C's plus: a search claims its stage-one
# batch when the ahead worker has not started it) against the session's start (f53fa79), one host. The
# GPU cases of the tuner first; then cold tunes: final op n (the host's first tune), start op n, final
# op n, final op h, start op h.
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in start final; do xz -dc carry/$b.xz > /tmp/jitsparse_$b; chmod +x /tmp/jitsparse_$b; done
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1; nproc >> $o/gpu.txt
run() {  # binary op name timeout
  export JITSPARSE_CACHE=/tmp/je_$3
  timeout $4 /tmp/jitsparse_$1 tune -q --op $2 -o $o/$3 > $o/$3.log 2>&1; echo "$3 rc $? at $(el) s"; grep "tuned in" $o/$3.log
  cp $JITSPARSE_CACHE/tuning/*.json $o/$3/db.json 2>/dev/null; rm -f $o/$3/tune.html; gzip $o/$3/*.json 2>/dev/null
}
run final n final_n_first 150
JITSPARSE_CACHE=/tmp/je_tests timeout 120 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"; grep -E "test cases|assertions" $o/gpu_tests.log
run start n start_n 130
run final n final_n 130
run final h final_h 130
left=$(( 590 - $(el) )); if [ $left -gt 90 ]; then run start h start_h $left; fi
cd $OUT && tar czf e.tgz e && rm -rf e
