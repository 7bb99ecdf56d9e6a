#!/usr/bin/env bash
# thirty-third session, call A: batched COO steps in the HiSparse kernels (JITSPARSE_HISPARSE_BATCH=1 through
# JITSPARSE_NVRTC_FLAGS) against the same binary without them; A x on --builtin large beside the tuned winners,
# setups g32 u1/u2/u4 of hisparse64c2 and hisparse256c2; GPU cases of the hisparse products with the batches.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
B="-DJITSPARSE_HISPARSE_BATCH=1"
JITSPARSE_NVRTC_FLAGS="$B" JITSPARSE_CACHE=/tmp/jj_tests timeout 150 /tmp/gpu_tests -tc="gpu spmv: hisparse*,gpu spmv: the hisparse*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
W="--variant quaternion.f32/ell-aos-aos/static-1024x2-even --variant quaternion.f64/ell-aos-soa/static-512x2-even
 --variant block3.f32/ell-soa-aos-d16/static-128x16 --variant block3.f64/csr-soa-aos-d16/static-256x4-tpr16-u4
 --variant complex.f32/ell-aos-aos-d16/static-128x16-even --variant complex.f64/ell-aos-aos-d16/static-1024x2-even
 --variant real.f32/ell-soa-soa-d16/static-256x8-u4-even --variant real.f64/ell-aos-aos-d16/static-256x8-even"
H=""
for e in quaternion block3 complex real; do for p in f32 f64; do
  for l in hisparse64c2 hisparse256c2; do for u in -u1 "" -u4; do
    H="$H --variant $e.$p/$l-aos-aos/hisparse-128x8-g32-big4096$u"
  done; done
done; done
run() {  # name flags args...
  local name=$1 flags=$2; shift 2
  JITSPARSE_NVRTC_FLAGS="$flags" JITSPARSE_CACHE=/tmp/c_$name timeout 170 /tmp/jitsparse bench -q --builtin large "$@" -o $o/$name > $o/$name.log 2>&1
  echo "$name rc $? at $(el) s"
}
run batch_n "$B" $W $H
run base_n "" $W $H
rm -f $o/*/bench.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf a.tgz a && rm -rf a
