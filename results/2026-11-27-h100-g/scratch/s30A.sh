#!/usr/bin/env bash
# thirtieth session, call A (binary built from 82a5b73 plus two experiment hooks, not committed:
# JITSPARSE_CARVEOUT in runtime/context.cpp set cudaFuncAttributePreferredSharedMemoryCarveout on every
# loaded kernel; XP_THREADS replaced the model's kParallelThreads). (1) the carveout 0 (max L1) against
# the driver's default on the irregular set's call-D winners, cold, one bench run each; (2) the model's
# parallelism threshold 131072 evaluated on call E's database (29th session), untimed picks timed.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
V="--variant quaternion.f32/sell32s64-aos-aos/static-768x2-even --variant quaternion.f64/sell32s8192-aos-aos-d16/dynamic-256x4-tpr2
 --variant block3.f32/hola-aos-aos/hola-128x8-ept4@rcm --variant block3.f64/sell32s8192-soa-aos/static-32x16-even
 --variant complex.f32/sell32s256-aos-aos-d16/static-1024x2-even --variant complex.f64/sell32s256-soa-soa-d16/static-384x3-even
 --variant real.f32/hola-soa-aos/hola-512x2-ept4@degree --variant real.f64/hola-aos-soa/hola-128x8-ept2
 --variant real.f32/sell32s256-aos-aos-d16/static-256x8-u4-even@rcm --variant real.f64/hola-soa-soa/hola-64x16-ept2@degree-ymove"
for co in default 0; do
  if [ $co = default ]; then unset JITSPARSE_CARVEOUT; else export JITSPARSE_CARVEOUT=$co; fi
  JITSPARSE_CACHE=/tmp/c_$co timeout 260 /tmp/jitsparse bench --builtin irregular --l2 cold --samples 21 $V -o $o/bench_$co > $o/bench_$co.log 2>&1
  echo "bench carveout $co rc $? at $(el) s"
done
unset JITSPARSE_CARVEOUT
db=NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
data="tests/data/real tests/data/graph tests/data/complex@complex"
tar xzf results/2026-11-27-h100-f/callE_few_blocks.tgz -C /tmp e/db_evaluated.json.gz
mkdir -p /tmp/ev/tuning; gunzip -c /tmp/e/db_evaluated.json.gz > /tmp/ev/tuning/$db
for h in main matrix; do
  XP_THREADS=131072 JITSPARSE_CACHE=/tmp/ev timeout 130 /tmp/jitsparse evaluate --holdout $h --no-quick-timing --no-cusparse --budget 100s \
    $data -o $o/evaluate_$h > $o/evaluate_$h.log 2>&1; echo "evaluate $h rc $? at $(el) s"
done
gzip -c /tmp/ev/tuning/$db > $o/db_evaluated.json.gz
rm -f $o/*/evaluate.html $o/*/bench.html; gzip $o/*/*.json 2>/dev/null
cd $OUT && tar czf a.tgz a && rm -rf a
