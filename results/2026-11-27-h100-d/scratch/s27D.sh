#!/usr/bin/env bash
# twenty-seventh session, call D: why quaternion f64 hola takes ~60 us on dirac_small (12 MB) when f32 takes
# 8 and dirac_large f64 (13x the entries) 81-96: warm and cold, with and without programmatic launch, other
# entry types as controls; Nsight Compute details of one launch.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
export JITSPARSE_CACHE=/tmp/jd_cache
V="--variant quaternion.f64/hola-soa-soa/hola-256x4-ept2 --variant quaternion.f32/hola-soa-soa/hola-256x4-ept2 --variant quaternion.f64/hola-aos-aos/hola-256x4-ept4 --variant quaternion.f64/csr-aos-aos/static-256x4-tpr4"
for l2 in warm cold; do
  carry/jitsparse bench -q --l2 $l2 --samples 21 --builtin dirac_small $V -o $o/dirac_small_$l2 > $o/dirac_small_$l2.log 2>&1; echo "dirac_small $l2 rc $? at $(el) s"
  grep "jitsparse" $o/dirac_small_$l2.log | cut -c1-140
done
JITSPARSE_PROGRAMMATIC_LAUNCH=0 carry/jitsparse bench -q --l2 warm --samples 21 --builtin dirac_small $V -o $o/dirac_small_nopdl > $o/dirac_small_nopdl.log 2>&1; echo "no PDL rc $? at $(el) s"
grep "jitsparse" $o/dirac_small_nopdl.log | cut -c1-140
carry/jitsparse bench -q --l2 warm --samples 21 --builtin elasticity_small --variant block3.f64/hola-soa-soa/hola-256x4-ept2 --variant block3.f32/hola-soa-soa/hola-256x4-ept2 -o $o/el_small > $o/el_small.log 2>&1
grep "jitsparse" $o/el_small.log | cut -c1-140
for pv in f64:quaternion.f64/hola-soa-soa/hola-256x4-ept2 f32:quaternion.f32/hola-soa-soa/hola-256x4-ept2; do
  p=${pv%%:*} v=${pv#*:}
  timeout 120 ncu --clock-control none -k "regex:hola" -c 2 --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
    carry/jitsparse bench -q --builtin dirac_small -p $p --samples 3 --variant $v -o /tmp/ncu_b_$p > $o/ncu_$p.txt 2>&1; echo "ncu $p rc $? at $(el) s"
done
grep -E "hola_|Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Block Limit|Warp Cycles Per Issued|Stall|Shared Memory Config|Static Shared|Grid Size" $o/ncu_f64.txt | head -60
cd $OUT && tar czf d.tgz d && rm -rf d
