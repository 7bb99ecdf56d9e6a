#!/usr/bin/env bash
# thirty-second session, call A: HiSparse kernels compiled for their layout's COO width only, wide entries
# loaded where used (JS_LAZY), CSR chunks by bytes (JS_T4/JS_T2). A x of 4 hisparse setups on --builtin large,
# the start code's binary (base, with the tuned winners) against this one in three knob settings; the
# renumbered (@rcm) hisparse; A^T x base vs new; GPU cases of the hisparse products.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
W="--variant quaternion.f32/ell-aos-aos/static-1024x2-even --variant quaternion.f64/ell-aos-soa/static-512x2-even
 --variant block3.f32/ell-soa-aos-d16/static-128x16 --variant block3.f64/csr-soa-aos-d16/static-256x4-tpr16-u4
 --variant complex.f32/ell-aos-aos-d16/static-128x16-even --variant complex.f64/ell-aos-aos-d16/static-1024x2-even
 --variant real.f32/ell-soa-soa-d16/static-256x8-u4-even --variant real.f64/ell-aos-aos-d16/static-256x8-even"
H=""; R=""; T=""
for e in quaternion block3 complex real; do for p in f32 f64; do
  for l in hisparse64c2 hisparse64c2r hisparse256c2 hisparse256c2r; do H="$H --variant $e.$p/$l-aos-aos/hisparse-128x8-g32-big4096-u1"; done
  for l in hisparse64c2 hisparse64c2r; do R="$R --variant $e.$p/$l-aos-aos/hisparse-128x8-g32-big4096-u1@rcm"; done
  for l in hisparse64c2 hisparse64c2r; do T="$T --variant $e.$p/$l-aos-aos/hisparse-128x8-g32-big4096-u1/t-tree"; done
done; done
run() {  # name binary flags args...
  local name=$1 bin=$2 flags=$3; shift 3
  JITSPARSE_NVRTC_FLAGS="$flags" JITSPARSE_CACHE=/tmp/c_$name timeout 140 /tmp/$bin bench -q --builtin large "$@" -o $o/$name > $o/$name.log 2>&1
  echo "$name rc $? at $(el) s"
}
run base_n jitsparse_base "" $W $H
run new_n jitsparse "" $H $R
run xonly_n jitsparse "-DJS_T4=16 -DJS_T2=32 -DJS_LAZY=1000" $H
JITSPARSE_CACHE=/tmp/jj_tests timeout 150 /tmp/gpu_tests -tc="gpu spmv: hisparse*,gpu spmv: the hisparse*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
rm -f $o/*/bench.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf a.tgz a && rm -rf a
