#!/usr/bin/env bash
# twenty-seventh session, call C: (1) the model with the launch-floor terms and threads-per-row twins
# (cherry-picked 4c1e00d): `evaluate --holdout main` on the twenty-second session's evaluated database,
# the first choices the search never timed measured here (tests/data files given); (2) the even-grid stage
# on three more 250 MB irregular matrices, tuned and benched cold.
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
mkdir -p /tmp/jc_eval/tuning
gunzip -c results/2026-11-25-h100-i/callG_db_evaluated.json.gz > /tmp/jc_eval/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
JITSPARSE_CACHE=/tmp/jc_eval timeout 260 carry/jitsparse evaluate --holdout main --no-quick-timing --no-cusparse --budget 3m \
  tests/data/real tests/data/graph tests/data/complex@complex -o $o/evaluate_main > $o/evaluate_main.log 2>&1; echo "evaluate rc $? at $(el) s"
grep -A4 "^predictor" $o/evaluate_main.log
gzip -c /tmp/jc_eval/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json > $o/db_evaluated_main.json.gz
export JITSPARSE_CACHE=/tmp/jb_cache
for m in irregular_helmholtz_porous_scan_240mb irregular_elasticity_porous_random_250mb irregular_laplacian_porous_random_250mb; do
  [ $(el) -lt 400 ] || break
  timeout $(( 470 - $(el) )) carry/jitsparse bench --l2 cold -q --builtin $m -o $o/bench_$m > $o/bench_$m.log 2>&1; echo "$m rc $? at $(el) s"
  grep "jitsparse" $o/bench_$m.log | cut -c1-150; tail -3 $o/bench_$m.log
done
cd $OUT && tar czf c.tgz c && rm -rf c
