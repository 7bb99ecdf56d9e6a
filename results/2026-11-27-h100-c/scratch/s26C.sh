#!/usr/bin/env bash
# twenty-sixth session, call C: host time of run-time selection on the GPU host with the final code
# (predict --database: prepared model, features on up to four threads, flat profiles), and the scratch
# breakdowns (hostparts: parts timed warm; ft5: features and predict with the caches flushed before each)
set -u
o=$OUT/c; mkdir -p $o
gunzip -c results/2026-11-25-h100-i/callG_db_evaluated.json.gz > /tmp/db.json
gunzip -c carry/db_newkeys.json.gz > /tmp/db_newkeys.json
for b in irregular_laplacian_porous_random_250mb irregular_helmholtz_porous_scan_240mb irregular_graph_rmat_random_260mb; do carry/jitsparse predict --database /tmp/db.json --builtin $b --top 1 2>/dev/null | grep -E "^irregular|^database|selection took"; done > $o/predict_irregular.log
for i in 1 2; do carry/jitsparse predict --database /tmp/db_newkeys.json --builtin small --top 1 2>/dev/null | grep -E "^[a-z]+_small|^database|selection took"; done > $o/predict_small_newkeys.log
carry/ft5 /tmp/db.json irregular_laplacian_porous_random_250mb irregular_helmholtz_porous_scan_240mb laplacian_small dirac_small > $o/ft5_cold.log 2>&1
carry/hostparts /tmp/db.json irregular_laplacian_porous_random_250mb laplacian_small > $o/hostparts.log 2>&1
grep "selection took" $o/predict_irregular.log | sed 's/, the rest.*//'
cat $o/ft5_cold.log
cd $OUT && tar czf c.tgz c && rm -rf c
