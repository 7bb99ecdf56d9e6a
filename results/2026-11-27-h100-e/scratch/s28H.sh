#!/usr/bin/env bash
# twenty-eighth session, call H: the final code with block3 f64 back at 2048 threads in stage one (with
# its register twins). GPU cases of the tuner; the main job cold (a fresh host's first tune); the main set
# benched cold against cuSPARSE; `tune --op h` cold.
set -u
START=$(date +%s)
o=$OUT/h; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/final.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
export JITSPARSE_CACHE=/tmp/jh_cache
timeout 150 /tmp/jitsparse tune -q -o $o/tune > $o/tune_main.log 2>&1; echo "tune rc $? at $(el) s"; grep "tuned in" $o/tune_main.log
cp $JITSPARSE_CACHE/tuning/*.json $o/db_main.json; rm -f $o/tune/tune.html
timeout 120 /tmp/jitsparse bench --no-tune --l2 cold -q -o $o/bench_main > $o/bench_main.log 2>&1; echo "bench main rc $? at $(el) s"
tail -27 $o/bench_main.log
JITSPARSE_CACHE=/tmp/jh_tests timeout 120 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"; grep -E "test cases|assertions" $o/gpu_tests.log
JITSPARSE_CACHE=/tmp/jh_h timeout 150 /tmp/jitsparse tune -q --op h -o $o/tune_h > $o/tune_h.log 2>&1; echo "tune h rc $? at $(el) s"; grep "tuned in" $o/tune_h.log; rm -f $o/tune_h/tune.html
rm -f $o/*/bench.html; gzip $o/*.json $o/*/*.json 2>/dev/null
cd $OUT && tar czf h.tgz h && rm -rf h
