#!/usr/bin/env bash
# twenty-sixth session, call F: GPU cases of what changed last (renumbering on the host: RCM, permute_symmetric
# in shares; selection and load_tuned; the permuted matrix), and run-time selection's host time for the
# renumbered narrow pick (RCM computed at selection, reused by the packing)
set -u
START=$(date +%s)
o=$OUT/f; mkdir -p $o
JITSPARSE_CACHE=/tmp/jf_t timeout 400 carry/jitsparse_gpu_tests -tc="gpu spmv: renumbered*,gpu permuted*,gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu rc $? $(( $(date +%s)-START )) s"; tail -3 $o/gpu_tests.log
gunzip -c results/2026-11-25-h100-i/callG_db_evaluated.json.gz > /tmp/db.json
for i in 1 2; do carry/jitsparse predict --database /tmp/db.json --builtin irregular_laplacian_porous_random_250mb --top 1 2>/dev/null | grep -E "^irregular|^database|selection took"; done > $o/predict_laplacian.log
grep "selection took" $o/predict_laplacian.log | sed 's/, the rest.*//'
cd $OUT && tar czf f.tgz f && rm -rf f
