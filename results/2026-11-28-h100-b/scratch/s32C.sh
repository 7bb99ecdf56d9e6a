#!/usr/bin/env bash
# thirty-second session, call C: the final code (as call B) against the start code's binary (base):
# A^T x of 4 hisparse setups on --builtin large, base and new; A x of the final code with the winners,
# the 4 setups and the renumbered ones (the table of the note, beside cuSPARSE in the same run).
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
W="--variant quaternion.f32/ell-aos-aos/static-1024x2-even --variant quaternion.f64/ell-aos-soa/static-512x2-even
 --variant block3.f32/ell-soa-aos-d16/static-128x16 --variant block3.f64/csr-soa-aos-d16/static-256x4-tpr16-u4
 --variant complex.f32/ell-aos-aos-d16/static-128x16-even --variant complex.f64/ell-aos-aos-d16/static-1024x2-even
 --variant real.f32/ell-soa-soa-d16/static-256x8-u4-even --variant real.f64/ell-aos-aos-d16/static-256x8-even"
H=""; R=""; T=""; TR=""
for e in quaternion block3 complex real; do for p in f32 f64; do
  for l in hisparse64c2 hisparse64c2r hisparse256c2 hisparse256c2r; do
    H="$H --variant $e.$p/$l-aos-aos/hisparse-128x8-g32-big4096-u1"
    T="$T --variant $e.$p/$l-aos-aos/hisparse-128x8-g32-big4096-u1/t-tree"
  done
  for l in hisparse64c2 hisparse256c2r; do
    R="$R --variant $e.$p/$l-aos-aos/hisparse-128x8-g32-big4096-u1@rcm"
    TR="$TR --variant $e.$p/$l-aos-aos/hisparse-128x8-g32-big4096-u1/t-tree@rcm"
  done
done; done
run() {  # name binary args...
  local name=$1 bin=$2; shift 2
  JITSPARSE_CACHE=/tmp/c_$name timeout 170 /tmp/$bin bench -q --builtin large "$@" -o $o/$name > $o/$name.log 2>&1
  echo "$name rc $? at $(el) s"
}
run final_n jitsparse $W $H $R
run new_t jitsparse --op t $T $TR
run base_t jitsparse_base --op t $T
rm -f $o/*/bench.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf c.tgz c && rm -rf c
