#!/usr/bin/env bash
# twenty-ninth session, call J: scattered_x_form. evaluate --holdout main, then matrix, on call E's
# evaluated database (the rewritten first choices timed); GPU cases "gpu tuner*" on this code.
set -u
START=$(date +%s)
o=$OUT/j; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
db=NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
data="tests/data/real tests/data/graph tests/data/complex@complex"
tar xzf results/2026-11-27-h100-f/callE_few_blocks.tgz -C /tmp e/db_evaluated.json.gz
mkdir -p /tmp/jj_eval/tuning; gunzip -c /tmp/e/db_evaluated.json.gz > /tmp/jj_eval/tuning/$db
for h in main matrix; do
  JITSPARSE_CACHE=/tmp/jj_eval timeout 120 /tmp/jitsparse evaluate --holdout $h --no-quick-timing --no-cusparse --budget 90s \
    $data -o $o/evaluate_$h > $o/evaluate_$h.log 2>&1; echo "evaluate $h rc $? at $(el) s"
  grep -A3 "^predictor" $o/evaluate_$h.log
done
JITSPARSE_CACHE=/tmp/jj_tests timeout 150 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"; grep -E "test cases|assertions" $o/gpu_tests.log
rm -f $o/*/evaluate.html; gzip $o/*/*.json 2>/dev/null
cd $OUT && tar czf j.tgz j && rm -rf j
