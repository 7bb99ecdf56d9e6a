#!/usr/bin/env bash
# thirty-third session, call D (the final code): the main job cold (batched setups in both big strips; later
# hisparse layouts in a setup that fits), the GPU tuner cases, and A x of the start code's binary (base,
# bbf7efe) against this one on --builtin large: stage one's hisparse64c2 setups (the non-batched path, whose
# leaf loop changed) and, new only, the two batched setups.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/c_tune timeout 170 /tmp/jitsparse tune -o $o/tune > $o/tune.log 2>&1; echo "tune rc $? at $(el) s"
tail -3 $o/tune.log | head -1
for f in /tmp/c_tune/tuning/*.json; do xz -c "$f" > $o/db_$(basename "$f").xz; done
JITSPARSE_CACHE=/tmp/jj_tests timeout 150 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
H=""; B=""
for e in quaternion block3 complex real; do for p in f32 f64; do
  for s in 128x4-g16-big4096 128x4-g32-big4096-u1 128x8-g32-big4096-u1 128x16-g16-big4096-u1; do
    H="$H --variant $e.$p/hisparse64c2-aos-aos/hisparse-$s"; done
  for s in 128x4-g32-big256-u1-b 128x4-g32-big4096-u1-b; do B="$B --variant $e.$p/hisparse64c2-aos-aos/hisparse-$s"; done
done; done
run() {  # name binary args...
  local name=$1 bin=$2; shift 2
  JITSPARSE_CACHE=/tmp/c_$name timeout 110 /tmp/$bin bench -q --builtin large "$@" -o $o/$name > $o/$name.log 2>&1
  echo "$name rc $? at $(el) s"
}
run new_n jitsparse $H $B
run base_n jitsparse_base $H
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf d.tgz d && rm -rf d
