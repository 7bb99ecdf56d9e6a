#!/usr/bin/env bash
# twenty-seventh session, call G: the R-MAT graph (260 MB, random order) tuned and benched cold with the final
# code, to complete the irregular set's table.
set -u
START=$(date +%s)
o=$OUT/g; mkdir -p $o
export JITSPARSE_CACHE=/tmp/jg
timeout 280 carry/jitsparse bench --l2 cold -q --builtin irregular_graph_rmat_random_260mb -o $o/bench_graph > $o/bench_graph.log 2>&1; echo "graph rc $? at $(( $(date +%s)-START )) s"
grep "jitsparse" $o/bench_graph.log | cut -c1-160; tail -3 $o/bench_graph.log
cd $OUT && tar czf g.tgz g && rm -rf g
