#!/usr/bin/env bash
# thirty-fifth session, call D: the warp kernel for big leaf pairs compiled for 48 warps an SM (entries of up
# to 8 bytes, d 64) against call C's binary (7017fac, jitsparse_c), bench-add op n on six real and complex
# matrices, alternating the binaries on each; GPU cases "gpu hisparse add*"; then bench-add op t (A^T + B^T)
# of this binary on the built-in set, warm.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_c gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 90 /tmp/gpu_tests -tc="gpu hisparse add*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
for m in laplacian_large helmholtz_large laplacian_irregular laplacian_small helmholtz_small graph_irregular; do
  for b in jitsparse jitsparse_c; do
    JITSPARSE_CACHE=/tmp/c_$b timeout 60 /tmp/$b bench-add --builtin $m -o $o/n_${b}_$m > $o/n_${b}_$m.log 2>&1
    echo "$m $b rc $? at $(el) s: $(grep -E "^$m " $o/n_${b}_$m.log | awk '{printf "%s %s %s | ", $2, $4, $5}')"
  done
done
left=$(( 430 - $(el) ))
JITSPARSE_CACHE=/tmp/c_jitsparse timeout $left /tmp/jitsparse bench-add --op t -o $o/add_t > $o/add_t.log 2>&1; echo "add t rc $? at $(el) s"
xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf d.tar.xz d && rm -rf d
