#!/usr/bin/env bash
# twenty-ninth session, call B: what the five tiny matrices give a user who tuned only the main set.
# tests/data (29 matrices nobody tuned, 34-11k rows) benched with `--no-tune --graph` twice on this host:
# with the twenty-eighth session's main database (13 matrices, call H) and with call A's (18, the tiny
# ones among them); then `evaluate --holdout main` on call A's evaluated database with cuSPARSE timed;
# then `tune --op t` cold on the 18.
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
db=NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
tar xzf results/2026-11-27-h100-e/callH_final_main_bench.tgz -C /tmp h/db_main.json.gz
tar xzf results/2026-11-27-h100-f/callA_tiny_tune_evaluate.tgz -C /tmp a/db_main.json.gz a/db_evaluated_main.json.gz
data="tests/data/real tests/data/graph tests/data/complex@complex"
for which in old new; do
  mkdir -p /tmp/jb_$which/tuning
  if [ $which = old ]; then gunzip -c /tmp/h/db_main.json.gz > /tmp/jb_$which/tuning/$db; else gunzip -c /tmp/a/db_main.json.gz > /tmp/jb_$which/tuning/$db; fi
  JITSPARSE_CACHE=/tmp/jb_$which timeout 150 /tmp/jitsparse bench --no-tune --graph -q $data -o $o/bench_$which > $o/bench_$which.log 2>&1; echo "bench $which rc $? at $(el) s"
  tail -4 $o/bench_$which.log
done
mkdir -p /tmp/jb_eval/tuning; gunzip -c /tmp/a/db_evaluated_main.json.gz > /tmp/jb_eval/tuning/$db
JITSPARSE_CACHE=/tmp/jb_eval timeout 200 /tmp/jitsparse evaluate --holdout main --no-quick-timing --budget 170s \
  $data -o $o/evaluate_main > $o/evaluate_main.log 2>&1; echo "evaluate rc $? at $(el) s"
grep -A5 "^predictor" $o/evaluate_main.log
gzip -c /tmp/jb_eval/tuning/$db > $o/db_evaluated_main_cusparse.json.gz
left=$(( 575 - $(el) ))
JITSPARSE_CACHE=/tmp/jb_t timeout $left /tmp/jitsparse tune -q --op t -o $o/tune_t > $o/tune_t.log 2>&1; echo "tune t rc $? at $(el) s"; grep "tuned in" $o/tune_t.log; rm -f $o/tune_t/tune.html
rm -f $o/*/bench.html $o/*/evaluate.html; gzip $o/*.json $o/*/*.json 2>/dev/null
cd $OUT && tar czf b.tgz b && rm -rf b
