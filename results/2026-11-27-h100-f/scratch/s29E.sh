#!/usr/bin/env bash
# twenty-ninth session, call E: one block per SM for wide entries on few-block grids (few_blocks_form).
# (1) evaluate --holdout main, then matrix, on call B's evaluated database: the first choices the rule
# rewrote are timed (cuSPARSE's times are in call B's evaluate.json); (2) tests/data never tuned, `bench
# --no-tune --graph` with call A's main database, the base binary (a8323de) and the new one, same host.
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
xz -dc carry/jitsparse_base.xz > /tmp/jitsparse_base; chmod +x /tmp/jitsparse_base
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
db=NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
data="tests/data/real tests/data/graph tests/data/complex@complex"
tar xzf results/2026-11-27-h100-f/callB_tests_data_no_tune.tgz -C /tmp b/db_evaluated_main_cusparse.json.gz
tar xzf results/2026-11-27-h100-f/callA_tiny_tune_evaluate.tgz -C /tmp a/db_main.json.gz
mkdir -p /tmp/je_eval/tuning; gunzip -c /tmp/b/db_evaluated_main_cusparse.json.gz > /tmp/je_eval/tuning/$db
for h in main matrix; do
  JITSPARSE_CACHE=/tmp/je_eval timeout 200 /tmp/jitsparse evaluate --holdout $h --no-quick-timing --no-cusparse --budget 150s \
    $data -o $o/evaluate_$h > $o/evaluate_$h.log 2>&1; echo "evaluate $h rc $? at $(el) s"
  grep -A3 "^predictor" $o/evaluate_$h.log
done
gzip -c /tmp/je_eval/tuning/$db > $o/db_evaluated.json.gz
for which in base new; do
  bin=/tmp/jitsparse; [ $which = base ] && bin=/tmp/jitsparse_base
  mkdir -p /tmp/je_$which/tuning; gunzip -c /tmp/a/db_main.json.gz > /tmp/je_$which/tuning/$db
  JITSPARSE_CACHE=/tmp/je_$which timeout 100 $bin bench --no-tune --graph -q $data -o $o/bench_$which > $o/bench_$which.log 2>&1; echo "bench $which rc $? at $(el) s"
done
rm -f $o/*/bench.html $o/*/evaluate.html; gzip $o/*/*.json 2>/dev/null
cd $OUT && tar czf e.tgz e && rm -rf e
