#!/usr/bin/env bash
# twenty-sixth session, call E: the vector move of renumbered products as a scatter (coalesced reads,
# scattered writes) against the gather, A/B cold twice each (scratch knob JITSPARSE_SCATTER_MOVE), and
# the renumbered GPU cases with the scatter move
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
JITSPARSE_SCATTER_MOVE=1 JITSPARSE_CACHE=/tmp/je_t timeout 150 carry/jitsparse_gpu_tests -tc="gpu spmv: renumbered*" > $o/gpu_renumbered_scatter.log 2>&1; echo "gpu rc $? $(( $(date +%s)-START )) s"; tail -3 $o/gpu_renumbered_scatter.log
BUILTINS="irregular_laplacian_porous_random_250mb irregular_elasticity_porous_random_250mb" BENCH_ARGS="--samples 31" \
  bash scripts/ab_env.sh $o carry/ab_scatter.txt gather= scatter=JITSPARSE_SCATTER_MOVE=1 gather2= scatter2=JITSPARSE_SCATTER_MOVE=1
echo "total $(( $(date +%s)-START )) s"
for b in irregular_laplacian_porous_random_250mb irregular_elasticity_porous_random_250mb; do
  python3 scripts/ab_compare.py $o/ab_gather_$b/bench.jsonl $o/ab_scatter_$b/bench.jsonl
  python3 scripts/ab_compare.py $o/ab_gather2_$b/bench.jsonl $o/ab_scatter2_$b/bench.jsonl
done 2>&1 | tee $o/compare.txt
cd $OUT && tar czf e.tgz e && rm -rf e
