#!/usr/bin/env bash
# thirtieth session, call F: Nsight Compute on HiSparse A x setups (laplacian_large f32, dirac_large f32)
# beside the ELL winner: what limits the hisparse kernel (code 4cd13d3).
set -u
o=$OUT/f; mkdir -p $o
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
n=0
while read -r matrix prec variant; do
  n=$((n+1))
  JITSPARSE_CACHE=/tmp/c_f timeout 150 $NCU --clock-control none --kernel-name-base demangled -k "regex:jitsparse::(spmv|hisparse_spmv)<" -c 2 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --csv --page details \
    /tmp/jitsparse bench -q --builtin $matrix -p $prec --samples 3 --variant $variant -o /tmp/prof_bench > $o/${matrix}_${prec}_$n.csv 2> $o/${matrix}_${prec}_$n.err
  echo "== $n $matrix $prec $variant rc $?"
done <<'LIST'
laplacian_large f32 real.f32/hisparse64c2-aos-aos/hisparse-128x8-g32-big4096-u1
laplacian_large f32 real.f32/hisparse64c4-aos-aos/hisparse-128x8-g32-big4096-u4
laplacian_large f32 real.f32/ell-soa-soa-d16/static-512x4-u4
dirac_large f32 quaternion.f32/hisparse64c2-aos-aos/hisparse-128x8-g32-big4096-u1
LIST
python3 scripts/ncu_summary.py $o/*.csv --stalls > $o/summary.txt 2>&1
gzip $o/*.csv
cd $OUT && tar czf f.tgz f && rm -rf f
