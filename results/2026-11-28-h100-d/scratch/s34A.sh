#!/usr/bin/env bash
# thirty-fourth session, call A: the wide hisparse rule (hisparse256c2 timed on matrices of 16 strips of 256
# rows per SM whatever the first hisparse layout's time, then in its own setups where it is the fastest
# hisparse): the main job cold (its time and database), the tuned hisparse of --builtin large against
# cuSPARSE in the same run, a sweep of d 64/128/256 in stage one's setups on --builtin large (same run),
# and the GPU tuner cases.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/c_tune timeout 200 /tmp/jitsparse tune -o $o/tune > $o/tune.log 2>&1; echo "tune rc $? at $(el) s"
tail -3 $o/tune.log
for f in /tmp/c_tune/tuning/*.json; do xz -c "$f" > $o/db_$(basename "$f").xz; done
JITSPARSE_CACHE=/tmp/c_tune timeout 120 /tmp/jitsparse bench -q --builtin large --no-tune --layout hisparse -o $o/bench_hisparse > $o/bench_hisparse.log 2>&1; echo "bench hisparse rc $? at $(el) s"
H=""
for e in quaternion block3 complex real; do for p in f32 f64; do
  for l in hisparse64c2 hisparse128c2 hisparse256c2; do
    for s in 128x4-g16-big4096 128x4-g32-big4096-u1 128x8-g32-big4096-u1 128x16-g16-big4096-u1 128x4-g32-big4096-u1-b; do
      case "$e.$p/$l/$s" in quaternion.f64/hisparse256c2/*-g16-*) continue;; esac  # 64 KB of shared memory
      H="$H --variant $e.$p/$l-aos-aos/hisparse-$s"; done
  done
done; done
JITSPARSE_CACHE=/tmp/c_sweep timeout 200 /tmp/jitsparse bench -q --builtin large $H -o $o/sweep > $o/sweep.log 2>&1; echo "sweep rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/jj_tests timeout 150 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf a.tar.xz a && rm -rf a
