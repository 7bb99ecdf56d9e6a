#!/usr/bin/env bash
# thirtieth session, call B (code of aa09671 before its last three changes: stand-ins on every neighbour,
# sorted twins of the first eight candidates of any layout, no narrow form, any entry width):
# evaluate --holdout main, then matrix, on call A's evaluated database plus the twenty-ninth session's
# call-D records of the 250 MB irregular set (db_irr.json: the picks never timed are timed); GPU cases
# "gpu tuner*".
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
db=NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
data="tests/data/real tests/data/graph tests/data/complex@complex"
mkdir -p /tmp/ev/tuning; gunzip -c carry/db_irr.json.gz > /tmp/ev/tuning/$db
for h in main matrix; do
  JITSPARSE_CACHE=/tmp/ev timeout 200 /tmp/jitsparse evaluate --holdout $h --no-quick-timing --no-cusparse --budget 170s \
    $data -o $o/evaluate_$h > $o/evaluate_$h.log 2>&1; echo "evaluate $h rc $? at $(el) s"
done
gzip -c /tmp/ev/tuning/$db > $o/db_evaluated.json.gz
JITSPARSE_CACHE=/tmp/jj_tests timeout 170 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
rm -f $o/*/evaluate.html; gzip $o/*/*.json 2>/dev/null
cd $OUT && tar czf b.tgz b && rm -rf b
