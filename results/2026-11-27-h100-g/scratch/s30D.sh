#!/usr/bin/env bash
# thirtieth session, call D: sorted sliced ELL with 16-row slices against the 32-row winners of the
# irregular set (call D of the twenty-ninth session), same schedules and policies, cold, one bench run
# (the tuner never times sell16 sorted); GPU cases "gpu tuner*" and "gpu spmv: sorted sell*" on aa09671.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
V=""
for v in quaternion.f32/SELLs64-aos-aos/static-768x2-even quaternion.f32/SELLs256-aos-aos-d16/static-768x2-even \
         quaternion.f64/SELLs8192-aos-aos-d16/dynamic-256x4-tpr2 block3.f32/SELLs256-soa-aos/static-512x1-even \
         block3.f64/SELLs8192-soa-aos/static-32x16-even complex.f32/SELLs256-aos-aos-d16/static-1024x2-even \
         complex.f64/SELLs256-soa-soa-d16/static-384x3-even real.f32/SELLs256-aos-aos-d16/static-256x8-u4-even@rcm \
         real.f64/SELLs256-aos-soa-d16/dynamic-256x8@rcm-ymove; do
  V="$V --variant ${v/SELL/sell32} --variant ${v/SELL/sell16}"
done
JITSPARSE_CACHE=/tmp/c_d timeout 300 /tmp/jitsparse bench --builtin irregular --l2 cold --samples 21 $V -o $o/bench_sell16 > $o/bench_sell16.log 2>&1
echo "bench rc $? at $(el) s"
grep -E "^irregular.* jitsparse" $o/bench_sell16.log | awk '{print $1, $2, $4, $6}'
JITSPARSE_CACHE=/tmp/jj_tests timeout 200 /tmp/gpu_tests -tc="gpu tuner*,gpu spmv: sorted sell*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"; grep -E "test cases|assertions" $o/gpu_tests.log
rm -f $o/*/bench.html; gzip $o/*/*.json 2>/dev/null
cd $OUT && tar czf d.tgz d && rm -rf d
