#!/usr/bin/env bash
# thirty-third session, call B: batched COO steps only for leaves below one step (kBatchBelow), COO1 leaves
# batched too, on by default; base = the same binary with -DJITSPARSE_HISPARSE_BATCH=0. GPU cases of the
# hisparse products; A x and A^T x on --builtin large, A x on --builtin small.
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 230 /tmp/gpu_tests -tc="gpu spmv: hisparse*,gpu spmv: the hisparse*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
H=""; T=""; S=""
for e in quaternion block3 complex real; do for p in f32 f64; do
  for l in hisparse64c2 hisparse256c2; do for u in -u1 ""; do
    H="$H --variant $e.$p/$l-aos-aos/hisparse-128x8-g32-big4096$u"
  done
  T="$T --variant $e.$p/$l-aos-aos/hisparse-128x8-g32-big4096-u1/t-tree"
  S="$S --variant $e.$p/$l-aos-aos/hisparse-128x4-g16-big4096-u1"
  done
done; done
run() {  # name flags set args...
  local name=$1 flags=$2 set=$3; shift 3
  JITSPARSE_NVRTC_FLAGS="$flags" JITSPARSE_CACHE=/tmp/c_$name timeout 100 /tmp/jitsparse bench -q --builtin $set "$@" -o $o/$name > $o/$name.log 2>&1
  echo "$name rc $? at $(el) s"
}
Z="-DJITSPARSE_HISPARSE_BATCH=0"
run batch_n "" large $H
run base_n "$Z" large $H
run batch_t "" large --op t $T
run base_t "$Z" large --op t $T
run batch_s "" small $H $S
run base_s "$Z" small $H $S
rm -f $o/*/bench.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf b.tgz b && rm -rf b
