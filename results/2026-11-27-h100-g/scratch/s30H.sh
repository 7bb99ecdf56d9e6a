#!/usr/bin/env bash
# thirtieth session, call H (12258ae plus scratch/hisparse_contiguous_lanes.patch, reverted): HiSparse A x with contiguous lane shares of each COO leaf and one scan per
# leaf (coo_leaf_rows). GPU cases "gpu spmv: hisparse*" (every hisparse variant checked against the CPU
# reference); then the setups of calls E and G beside the tuned winners, --builtin large, warm, one run.
set -u
START=$(date +%s)
o=$OUT/h; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 230 /tmp/gpu_tests -tc="gpu spmv: hisparse*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
V="--variant quaternion.f32/sell32-aos-aos/static-1024x2-even --variant quaternion.f64/ell-aos-soa/static-512x2-even
 --variant block3.f32/ell-soa-aos-d16/static-64x32 --variant block3.f64/csr-soa-aos-d16/static-128x8-tpr16-even
 --variant complex.f32/ell-aos-aos-d16/static-256x8 --variant complex.f64/ell-aos-aos-d16/static-1024x2-even
 --variant real.f32/ell-soa-soa-d16/static-512x4-u4 --variant real.f64/ell-soa-aos-d16/static-256x8-u4"
for e in quaternion block3 complex real; do for p in f32 f64; do
  for s in hisparse64c2-aos-aos/hisparse-128x8-g32-big4096-u1 hisparse128c4-aos-aos/hisparse-128x8-g32-big4096-u4 \
           hisparse64c4-aos-aos/hisparse-128x8-g8-big4096 hisparse64c4-aos-aos/hisparse-128x8-g16-big4096 \
           hisparse64c2-aos-aos/hisparse-128x8-g8-big4096 hisparse64c2-aos-aos/hisparse-128x16-g4-big4096 \
           hisparse64c4-aos-aos/hisparse-128x16-g8-big4096-u4; do
    V="$V --variant $e.$p/$s"
  done
done; done
JITSPARSE_CACHE=/tmp/c_h timeout 250 /tmp/jitsparse bench --builtin large $V -o $o/bench_rows > $o/bench_rows.log 2>&1
echo "bench rc $? at $(el) s"
grep -E "^[a-z_]+ +f(32|64) +jitsparse" $o/bench_rows.log | awk '{print $1, $2, $4, $(NF-4)}' | sed 's/-aos-aos\/hisparse//'
rm -f $o/*/bench.html; gzip $o/*/*.json 2>/dev/null
cd $OUT && tar czf h.tgz h && rm -rf h
