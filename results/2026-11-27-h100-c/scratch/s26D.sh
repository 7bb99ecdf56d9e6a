#!/usr/bin/env bash
# twenty-sixth session, call D: the main job end to end with the final code (cold `jitsparse tune`, new
# matrix keys), then `bench --no-tune` on the small built-ins (exact lookups, cold L2) and a 250 MB matrix
# never tuned (model level, its selection through the prepared model)
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
export JITSPARSE_CACHE=/tmp/jd_main
carry/jitsparse tune -q -o $o/tune > $o/tune_main.log 2>&1; echo "tune rc $? $(( $(date +%s)-START )) s"; grep "tuned in" $o/tune_main.log
t0=$(date +%s)
timeout 200 carry/jitsparse bench -q --no-tune --l2 cold --builtin small -o $o/bench_small > $o/bench_small.log 2>&1; echo "bench small rc $? $(( $(date +%s)-t0 )) s"
grep -E "jitsparse|cusparse" $o/bench_small.log | grep -c exact
left=$((580 - ($(date +%s) - START)))
t0=$(date +%s)
timeout $left carry/jitsparse bench -q --no-tune --l2 cold --builtin irregular_laplacian_porous_random_250mb -o $o/bench_new > $o/bench_new.log 2>&1; echo "bench new rc $? $(( $(date +%s)-t0 )) s"
grep -E "jitsparse" $o/bench_new.log | cut -c1-200
cp $JITSPARSE_CACHE/tuning/*.json $o/ 2>/dev/null; gzip $o/*.json 2>/dev/null
cd $OUT && tar czf d.tgz d && rm -rf d
