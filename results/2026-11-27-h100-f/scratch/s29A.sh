#!/usr/bin/env bash
# twenty-ninth session, call A: the main set with five ~2 MB irregular matrices (<family>_tiny).
# GPU cases "gpu tuner*" (the twenty-eighth session's last refactor never ran on a GPU); the main job cold
# (18 matrices); the tiny set benched cold; the model learnt from the new main set evaluated on the
# twenty-seventh session's training and tests/data records (first choices the search never timed measured
# here); `tune --op h` cold.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/ja_tests timeout 120 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"; grep -E "test cases|assertions" $o/gpu_tests.log
export JITSPARSE_CACHE=/tmp/ja_cache
timeout 200 /tmp/jitsparse tune -q -o $o/tune > $o/tune_main.log 2>&1; echo "tune rc $? at $(el) s"; grep "tuned in" $o/tune_main.log
cp $JITSPARSE_CACHE/tuning/*.json $o/db_main.json; rm -f $o/tune/tune.html
timeout 60 /tmp/jitsparse bench --no-tune --l2 cold -q --builtin tiny -o $o/bench_tiny > $o/bench_tiny.log 2>&1; echo "bench tiny rc $? at $(el) s"
tail -12 $o/bench_tiny.log
mkdir -p /tmp/ja_eval/tuning
tar xzf results/2026-11-27-h100-d/callF_evaluate_matrix_quick.tgz -C /tmp f/db_after_matrix.json.gz
python3 carry/merge_db.py /tmp/f/db_after_matrix.json.gz $o/db_main.json /tmp/ja_eval/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
JITSPARSE_CACHE=/tmp/ja_eval timeout 200 /tmp/jitsparse evaluate --holdout main --no-quick-timing --no-cusparse --budget 150s \
  tests/data/real tests/data/graph tests/data/complex@complex -o $o/evaluate_main > $o/evaluate_main.log 2>&1; echo "evaluate rc $? at $(el) s"
grep -A4 "^predictor" $o/evaluate_main.log
gzip -c /tmp/ja_eval/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json > $o/db_evaluated_main.json.gz
left=$(( 570 - $(el) ))
JITSPARSE_CACHE=/tmp/ja_h timeout $left /tmp/jitsparse tune -q --op h -o $o/tune_h > $o/tune_h.log 2>&1; echo "tune h rc $? at $(el) s"; grep "tuned in" $o/tune_h.log; rm -f $o/tune_h/tune.html
rm -f $o/*/bench.html $o/*/evaluate.html; gzip $o/*.json $o/*/*.json 2>/dev/null
cd $OUT && tar czf a.tgz a && rm -rf a
