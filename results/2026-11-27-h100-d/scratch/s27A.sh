#!/usr/bin/env bash
# twenty-seventh session, call A: scratch knobs A/B, cold: JITSPARSE_BALANCED_WAVES=1 (a row kernel's grid
# sized so every block runs the same number of chunks) and JITSPARSE_X_PERSIST=1 (the product launched with
# an L2 persisting access policy window over x; the flush resets persisting lines), on the row-kernel winners
# of the 250 MB irregular set and the main set's winners.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $o/gpu.txt 2>&1
BUILTINS="irregular_dirac_torusflip_scan_260mb irregular_elasticity_porous_random_250mb irregular_laplacian_porous_random_250mb irregular_helmholtz_porous_scan_240mb" \
  BENCH_ARGS="--samples 31" bash scripts/ab_env.sh $o/irr scripts/ab_irregular_winners.txt base= waves=JITSPARSE_BALANCED_WAVES=1 persist=JITSPARSE_X_PERSIST=1
echo "irregular done $(( $(date +%s)-START )) s"
BUILTINS="all" BENCH_ARGS="--samples 31" bash scripts/ab_env.sh $o/main scripts/ab_main_winners.txt base= waves=JITSPARSE_BALANCED_WAVES=1 persist=JITSPARSE_X_PERSIST=1
echo "total $(( $(date +%s)-START )) s"
for s in irr main; do
  for c in waves persist; do
    echo "== $s base vs $c"
    python3 scripts/ab_compare.py $(ls -d $o/$s/ab_base_*/bench.jsonl | paste -sd,) $(ls -d $o/$s/ab_${c}_*/bench.jsonl | paste -sd,)
  done
done 2>&1 | tee $o/compare.txt
cd $OUT && tar czf a.tgz a && rm -rf a
