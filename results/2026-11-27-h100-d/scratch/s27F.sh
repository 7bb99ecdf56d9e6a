#!/usr/bin/env bash
# twenty-seventh session, call F: quick tuning's trimmed rounds on the GPU: `evaluate --holdout matrix`
# on call C's database with tests/data's files, timing what quick tuning's walks lack (within a budget),
# then the same database scored offline.
set -u
START=$(date +%s)
o=$OUT/f; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
mkdir -p /tmp/jf/tuning
gunzip -c carry/db27.json.gz > /tmp/jf/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
JITSPARSE_CACHE=/tmp/jf timeout 420 carry/jitsparse evaluate --holdout matrix --no-cusparse --budget 330s \
  tests/data/real tests/data/graph tests/data/complex@complex -o $o/evaluate_matrix > $o/evaluate_matrix.log 2>&1; echo "evaluate rc $? at $(el) s"
grep -A5 "^predictor" $o/evaluate_matrix.log; grep "quick tuning measured" $o/evaluate_matrix.log
gzip -c /tmp/jf/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json > $o/db_after_matrix.json.gz
cd $OUT && tar czf f.tgz f && rm -rf f
