#!/usr/bin/env bash
# twenty-eighth session, call A: tune time A/B on one host. base = f53fa79; new = stage one of quaternion and
# block3 f64 at 1024 threads, the next stage's guess compiled while a stage is measured. Cold tunes
# (fresh cache each): new op n, base op n, new op h. Before them the GPU cases of the tuner (new code).
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in base new; do xz -dc carry/$b.xz > /tmp/jitsparse_$b; chmod +x /tmp/jitsparse_$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1; nproc >> $o/gpu.txt
run() {  # binary op name
  export JITSPARSE_CACHE=/tmp/ja_$3
  timeout $4 /tmp/jitsparse_$1 tune -q --op $2 -o $o/$3 > $o/$3.log 2>&1; echo "$3 rc $? at $(el) s"; grep "tuned in" $o/$3.log
  cp $JITSPARSE_CACHE/tuning/*.json $o/$3/db.json 2>/dev/null; rm -f $o/$3/tune.html; gzip $o/$3/*.json 2>/dev/null
}
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
JITSPARSE_CACHE=/tmp/ja_tests timeout 150 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"; tail -3 $o/gpu_tests.log
run new n new_n 170
run base n base_n 170
run new h new_h $(( 590 - $(el) ))
cd $OUT && tar czf a.tgz a && rm -rf a
