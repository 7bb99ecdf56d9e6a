#!/usr/bin/env bash
# thirty-first session, call A: the model with the surplus-threads term (6b3bfb0): evaluate --holdout main
# and matrix on the thirtieth session's evaluated database (call C), timing the picks it never timed;
# the SASS of a HiSparse A x kernel and of the ELL winner it is compared with (static instruction counts).
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
db=NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
data="tests/data/real tests/data/graph tests/data/complex@complex"
mkdir -p /tmp/ev/tuning; xz -dc carry/db_evaluated.json.xz > /tmp/ev/tuning/$db
for h in main matrix; do
  JITSPARSE_CACHE=/tmp/ev timeout 240 /tmp/jitsparse evaluate --holdout $h --no-quick-timing --no-cusparse --budget 200s \
    $data -o $o/evaluate_$h > $o/evaluate_$h.log 2>&1; echo "evaluate $h rc $? at $(el) s"
done
xz -9 -c /tmp/ev/tuning/$db > $o/db_evaluated.json.xz
# SASS (no GPU work): the exported kernels compiled by nvcc for sm_90
/tmp/jitsparse export -v real.f32/hisparse64c2-aos-aos/hisparse-128x8-g32-big4096-u1 -v real.f32/ell-soa-soa-d16/static-512x4-u4 -o /tmp/hx > /dev/null 2>&1
for k in /tmp/hx/kernels/*.cu; do
  b=$(basename $k .cu)
  nvcc -arch=sm_90 -cubin -O3 -std=c++17 -I /tmp/hx/include -I /tmp/hx -o /tmp/hx/$b.cubin $k > $o/$b.nvcc.log 2>&1
  cuobjdump -sass /tmp/hx/$b.cubin > $o/$b.sass 2>&1 || /usr/local/cuda/bin/cuobjdump -sass /tmp/hx/$b.cubin > $o/$b.sass 2>&1
done
echo "sass at $(el) s"
rm -f $o/*/evaluate.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf a.tgz a && rm -rf a
