#!/usr/bin/env bash
# twenty-ninth session, call I: the final code. GPU cases "gpu tuner*" (load_tuned's selection with the
# few-blocks rule read off the names) and tests/data never tuned (`bench --no-tune --graph`, call A's main
# database).
set -u
START=$(date +%s)
o=$OUT/i; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
xz -dc carry/gpu_tests.xz > /tmp/gpu_tests; chmod +x /tmp/gpu_tests
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/ji_tests timeout 150 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"; grep -E "test cases|assertions" $o/gpu_tests.log
tar xzf results/2026-11-27-h100-f/callA_tiny_tune_evaluate.tgz -C /tmp a/db_main.json.gz
mkdir -p /tmp/ji_b/tuning; gunzip -c /tmp/a/db_main.json.gz > /tmp/ji_b/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
JITSPARSE_CACHE=/tmp/ji_b timeout 100 /tmp/jitsparse bench --no-tune --graph -q tests/data/real tests/data/graph tests/data/complex@complex -o $o/bench > $o/bench.log 2>&1; echo "bench rc $? at $(el) s"
rm -f $o/*/bench.html; gzip $o/*/*.json 2>/dev/null
cd $OUT && tar czf i.tgz i && rm -rf i
