#!/usr/bin/env bash
# thirty-sixth session, call B: the code of call A with the big kernel at 48 warps an SM by default (entries
# of at most 8 bytes, d 64). "gpu hisparse add*"; bench-add op n on the tiny and small sets; Nsight Compute
# on the A + B kernels (scripts/profile_add.sh) for three matrices.
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
export PATH=$PATH:/usr/local/cuda/bin:$(ls -d /usr/local/cuda/nsight-compute* /opt/nvidia/nsight-compute/* 2>/dev/null | head -1)
command -v ncu || echo "no ncu"
JITSPARSE_CACHE=/tmp/jj_tests timeout 120 /tmp/gpu_tests -tc="gpu hisparse add*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
for s in tiny small; do
JITSPARSE_CACHE=/tmp/c_new timeout 100 /tmp/jitsparse bench-add --builtin $s -o $o/add_n_$s > $o/add_n_$s.log 2>&1; echo "add $s rc $? at $(el) s"
tail -3 $o/add_n_$s.log
done
for m in laplacian_large helmholtz_tiny dirac_irregular elasticity_large; do
  JITSPARSE_CACHE=/tmp/c_new BIN=/tmp timeout 120 bash scripts/profile_add.sh $o/prof $m f32 n; echo "profile $m at $(el) s"
done
xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf b.tar.xz b && rm -rf b
