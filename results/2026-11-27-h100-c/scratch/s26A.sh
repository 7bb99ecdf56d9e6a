#!/usr/bin/env bash
# twenty-sixth session, call A: GPU suite; host time of run-time selection (predict --database, prepared
# model, fast hash) on the GPU host; a cold op t tune of the main set
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
nproc > $o/nproc.txt
gunzip -c results/2026-11-25-h100-i/callG_db_evaluated.json.gz > /tmp/db.json
gunzip -c carry/db_newkeys.json.gz > /tmp/db_newkeys.json
for b in irregular_laplacian_porous_random_250mb irregular_helmholtz_porous_scan_240mb irregular_graph_rmat_random_260mb; do carry/jitsparse predict --database /tmp/db.json --builtin $b --top 1 2>/dev/null | grep -E "^irregular|^database|selection took"; done > $o/predict_irregular.log
for i in 1 2 3; do carry/jitsparse predict --database /tmp/db_newkeys.json --builtin small --top 1 2>/dev/null | grep -E "^[a-z]+_small|^database|selection took"; done > $o/predict_small_newkeys.log
for i in 1 2; do carry/jitsparse predict --database /tmp/db.json --builtin small --top 1 2>/dev/null | grep -E "^[a-z]+_small|selection took"; done > $o/predict_small_legacykeys.log
for f in tests/data/graph/cage10.mtx tests/data/real/bcsstk13.mtx; do carry/jitsparse predict --database /tmp/db.json $f --top 1 2>/dev/null | grep -E "level|selection took"; done > $o/predict_testsdata.log
grep "selection took" $o/predict_irregular.log | sed 's/, the rest.*//' | head -12
echo "predict $(( $(date +%s)-START )) s"
t0=$(date +%s)
JITSPARSE_CACHE=/tmp/ja_tests timeout 360 carry/jitsparse_gpu_tests > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? $(( $(date +%s)-t0 )) s"; tail -4 $o/gpu_tests.log
for op in t; do
  left=$((590 - ($(date +%s) - START)))
  [ $left -lt 60 ] && { echo "no time for op $op"; continue; }
  t0=$(date +%s)
  JITSPARSE_CACHE=/tmp/ja_tune_$op timeout $left carry/jitsparse tune -q --op $op -o $o/tune_$op > $o/tune_$op.log 2>&1
  echo "tune op $op rc $? $(( $(date +%s)-t0 )) s"; tail -3 $o/tune_$op.log
done
cd $OUT && tar czf a.tgz a && rm -rf a
