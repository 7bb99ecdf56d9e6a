#!/usr/bin/env bash
# thirty-second session, call D: the final code with hisparse256c2 in place of hisparse32c2 among the later
# hisparse layouts: the main job's tune time, op h then op n (cold caches, one host); then A x of hisparse d 64
# and d 256 on the small and tiny sets (real and complex), for the tuner's first hisparse layout.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
for op in h n; do
  JITSPARSE_CACHE=/tmp/c_tune_$op timeout 170 /tmp/jitsparse tune --op $op -o $o/tune_$op > $o/tune_$op.log 2>&1; echo "tune $op rc $? at $(el) s"
  grep "tuned in" $o/tune_$op.log
done
H=""
for e in complex real; do for p in f32 f64; do
  for l in hisparse64c2 hisparse256c2 hisparse256c2r; do for s in hisparse-128x4-g32-big256-u1 hisparse-128x8-g32-big4096-u1 hisparse-128x16-g16-big256-u1; do
    H="$H --variant $e.$p/$l-aos-aos/$s"; done; done
done; done
for set in small tiny; do
  JITSPARSE_CACHE=/tmp/c_b timeout 70 /tmp/jitsparse bench -q --builtin $set $H -o $o/bench_$set > $o/bench_$set.log 2>&1; echo "bench $set rc $? at $(el) s"
done
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf d.tgz d && rm -rf d
