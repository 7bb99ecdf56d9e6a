#!/usr/bin/env bash
# thirty-first session, call C: HiSparse CSR leaves with the row walk loading up to 4 entries at once (uncommitted code on 6b3bfb0). GPU cases of every
# hisparse product and of A + B (checked against the CPU reference); compute-sanitizer memcheck and
# racecheck of the hisparse products (real) and of the new A + B case; then HiSparse A x and A^T x with
# the same setups by the code before (jitsparse_base: COO leaves only) and with CSR leaves, beside the
# tuned winners, --builtin large, warm, one run each.
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 240 /tmp/gpu_tests -tc="gpu spmv: hisparse*,gpu spmv: the hisparse*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
for tool in memcheck; do
  JITSPARSE_CACHE=/tmp/jj_tests timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/gpu_tests \
    -tc="gpu spmv: hisparse layouts (real)" > $o/sanitize_$tool.log 2>&1; echo "sanitize $tool rc $? at $(el) s"
  tail -3 $o/sanitize_$tool.log
done
V="--variant quaternion.f32/sell32-aos-aos/static-1024x2-even --variant quaternion.f64/ell-aos-soa/static-512x2-even
 --variant block3.f32/ell-soa-aos-d16/static-64x32 --variant block3.f64/csr-soa-aos-d16/static-128x8-tpr16-even
 --variant complex.f32/ell-aos-aos-d16/static-256x8 --variant complex.f64/ell-aos-aos-d16/static-1024x2-even
 --variant real.f32/ell-soa-soa-d16/static-512x4-u4 --variant real.f64/ell-soa-aos-d16/static-256x8-u4"
for e in quaternion block3 complex real; do for p in f32 f64; do
  for s in hisparse64c2-aos-aos/hisparse-128x8-g32-big4096-u1 hisparse256c2-aos-aos/hisparse-128x8-g32-big4096-u1; do
    V="$V --variant $e.$p/$s"
  done
done; done
for b in jitsparse_base jitsparse; do
  JITSPARSE_CACHE=/tmp/c_$b timeout 200 /tmp/$b bench --builtin large $V -o $o/bench_$b > $o/bench_$b.log 2>&1
  echo "bench $b rc $? at $(el) s"
done
rm -f $o/*/bench.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf c.tgz c && rm -rf c
