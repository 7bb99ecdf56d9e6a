#!/usr/bin/env bash
# thirty-first session, call D: HiSparse CSR leaves as the layouts hisparse<d>c<X>r (uncommitted code on
# 6b3bfb0). GPU cases of every hisparse product (r layouts among them), A + B, the tuner and export;
# compute-sanitizer memcheck and racecheck of the real hisparse products; A x of each layout with and
# without r beside the tuned winners (--builtin large, warm, one run) and A^T x of hisparse64c2(r);
# then the main job (tune, cold cache) for its time.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 330 /tmp/gpu_tests -tc="gpu spmv: hisparse*,gpu spmv: the hisparse*,gpu hisparse add*,gpu tuner*,gpu export*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
for tool in memcheck racecheck; do
  JITSPARSE_CACHE=/tmp/jj_tests timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/gpu_tests \
    -tc="gpu spmv: hisparse layouts (real)" > $o/sanitize_$tool.log 2>&1; echo "sanitize $tool rc $? at $(el) s"
  tail -2 $o/sanitize_$tool.log
done
V="--variant quaternion.f32/sell32-aos-aos/static-1024x2-even --variant quaternion.f64/ell-aos-soa/static-512x2-even
 --variant block3.f32/ell-soa-aos-d16/static-64x32 --variant block3.f64/csr-soa-aos-d16/static-128x8-tpr16-even
 --variant complex.f32/ell-aos-aos-d16/static-256x8 --variant complex.f64/ell-aos-aos-d16/static-1024x2-even
 --variant real.f32/ell-soa-soa-d16/static-512x4-u4 --variant real.f64/ell-soa-aos-d16/static-256x8-u4"
T=""
for e in quaternion block3 complex real; do for p in f32 f64; do
  for s in hisparse64c2-aos-aos/hisparse-128x8-g32-big4096-u1 hisparse64c2r-aos-aos/hisparse-128x8-g32-big4096-u1 \
           hisparse256c2-aos-aos/hisparse-128x8-g32-big4096-u1 hisparse256c2r-aos-aos/hisparse-128x8-g32-big4096-u1; do
    V="$V --variant $e.$p/$s"
  done
  for s in hisparse64c2-aos-aos/hisparse-128x8-g32-big4096-u1/t-tree hisparse64c2r-aos-aos/hisparse-128x8-g32-big4096-u1/t-tree; do
    T="$T --variant $e.$p/$s"
  done
done; done
JITSPARSE_CACHE=/tmp/c_d timeout 150 /tmp/jitsparse bench --builtin large $V -o $o/bench_n > $o/bench_n.log 2>&1; echo "bench n rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/c_d timeout 150 /tmp/jitsparse bench --builtin large --op t $T -o $o/bench_t > $o/bench_t.log 2>&1; echo "bench t rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/c_tune timeout 200 /tmp/jitsparse tune -o $o/tune > $o/tune.log 2>&1; echo "tune rc $? at $(el) s"
tail -4 $o/tune.log
rm -f $o/*/bench.html $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf d.tgz d && rm -rf d
