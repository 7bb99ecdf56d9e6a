#!/usr/bin/env bash
# twenty-sixth session, call B: where selection's host time goes on the GPU host (scratch hostparts);
# the GPU test case call A's timeout cut; a cold op h tune of the main set
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
gunzip -c results/2026-11-25-h100-i/callG_db_evaluated.json.gz > /tmp/db.json
carry/hostparts /tmp/db.json irregular_laplacian_porous_random_250mb irregular_helmholtz_porous_scan_240mb laplacian_small 2>&1 | tee $o/hostparts.log
echo "hostparts $(( $(date +%s)-START )) s"
t0=$(date +%s)
JITSPARSE_CACHE=/tmp/jb_tests timeout 200 carry/jitsparse_gpu_tests -tc="gpu tuner: the next entry type*" > $o/gpu_test_rerun.log 2>&1; echo "gpu test rc $? $(( $(date +%s)-t0 )) s"; tail -3 $o/gpu_test_rerun.log
left=$((590 - ($(date +%s) - START)))
t0=$(date +%s)
JITSPARSE_CACHE=/tmp/jb_tune_h timeout $left carry/jitsparse tune -q --op h -o $o/tune_h > $o/tune_h.log 2>&1
echo "tune op h rc $? $(( $(date +%s)-t0 )) s"; tail -3 $o/tune_h.log
cd $OUT && tar czf b.tgz b && rm -rf b
