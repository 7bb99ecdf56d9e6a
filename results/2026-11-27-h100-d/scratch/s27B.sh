#!/usr/bin/env bash
# twenty-seventh session, call B: the even grid (Schedule::even_grid, "-even") as the tuner's last stage.
# GPU cases of the changed code; the main job cold with its tune.json; the main set cold against cuSPARSE;
# the scanned Dirac (260 MB) tuned and benched cold.
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
export JITSPARSE_CACHE=/tmp/jb_cache
JITSPARSE_CACHE=/tmp/jb_tests timeout 260 carry/jitsparse_gpu_tests -tc="gpu spmv: sorted sell*,gpu spmv: renumbered*,gpu export*,gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"; tail -3 $o/gpu_tests.log
carry/jitsparse tune -q -o $o/tune > $o/tune_main.log 2>&1; echo "tune rc $? at $(el) s"; grep "tuned in" $o/tune_main.log
timeout 200 carry/jitsparse bench --no-tune --l2 cold -q -o $o/bench_main > $o/bench_main.log 2>&1; echo "bench main rc $? at $(el) s"
if [ $(el) -lt 380 ]; then
  timeout $(( 560 - $(el) )) carry/jitsparse bench --l2 cold -q --builtin irregular_dirac_torusflip_scan_260mb -o $o/bench_dirac > $o/bench_dirac.log 2>&1; echo "dirac rc $? at $(el) s"
fi
grep -h "even" $o/bench_main.log $o/bench_dirac.log | head -20
tail -20 $o/bench_main.log; tail -6 $o/bench_dirac.log
cp $JITSPARSE_CACHE/tuning/*.json $o/ 2>/dev/null; gzip $o/*.json 2>/dev/null
cd $OUT && tar czf b.tgz b && rm -rf b
