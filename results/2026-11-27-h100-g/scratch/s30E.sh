#!/usr/bin/env bash
# thirtieth session, call E: HiSparse A x node/queue setups with more entries per thread and step (COO4
# leaves, unroll 4-8, groups of 8-32 threads) against the best-ranked setup (c2, g32, u1) and the tuned
# winners of the twenty-ninth session's main database, on the large and irregular built-in matrices
# (--builtin large), warm (bench default), one run (code 4cd13d3).
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
V="--variant quaternion.f32/sell32-aos-aos/static-1024x2-even --variant quaternion.f64/ell-aos-soa/static-512x2-even
 --variant block3.f32/ell-soa-aos-d16/static-64x32 --variant block3.f64/csr-soa-aos-d16/static-128x8-tpr16-even
 --variant complex.f32/ell-aos-aos-d16/static-256x8 --variant complex.f64/ell-aos-aos-d16/static-1024x2-even
 --variant real.f32/ell-soa-soa-d16/static-512x4-u4 --variant real.f64/ell-soa-aos-d16/static-256x8-u4"
for e in quaternion block3 complex real; do for p in f32 f64; do
  for s in hisparse64c2-aos-aos/hisparse-128x8-g32-big4096-u1 hisparse64c4-aos-aos/hisparse-128x8-g32-big4096-u4 \
           hisparse64c4-aos-aos/hisparse-128x8-g16-big4096-u4 hisparse64c4-aos-aos/hisparse-256x4-g8-big4096-u8 \
           hisparse128c4-aos-aos/hisparse-128x8-g32-big4096-u4 hisparse64c4-aos-aos/hisparse-256x8-g32-big4096-u8; do
    V="$V --variant $e.$p/$s"
  done
done; done
JITSPARSE_CACHE=/tmp/c_e timeout 500 /tmp/jitsparse bench --builtin large $V -o $o/bench_hisparse > $o/bench_hisparse.log 2>&1
echo "bench rc $? at $(el) s"
rm -f $o/*/bench.html; gzip $o/*/*.json 2>/dev/null
cd $OUT && tar czf e.tgz e && rm -rf e
