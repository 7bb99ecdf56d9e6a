#!/usr/bin/env bash
# twenty-eighth session, call G: the final code (README's main job as a fresh host's first tune), the main
# set benched cold against cuSPARSE with that database, `tune --op h` cold, and (time left) the scanned
# Dirac operator (260 MB) tuned and benched cold.
set -u
START=$(date +%s)
o=$OUT/g; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/final.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
export JITSPARSE_CACHE=/tmp/jg_cache
timeout 150 /tmp/jitsparse tune -q -o $o/tune > $o/tune_main.log 2>&1; echo "tune rc $? at $(el) s"; grep "tuned in" $o/tune_main.log
cp $JITSPARSE_CACHE/tuning/*.json $o/db_main.json; rm -f $o/tune/tune.html
timeout 220 /tmp/jitsparse bench --no-tune --l2 cold -q -o $o/bench_main > $o/bench_main.log 2>&1; echo "bench main rc $? at $(el) s"
tail -28 $o/bench_main.log
JITSPARSE_CACHE=/tmp/jg_h timeout 140 /tmp/jitsparse tune -q --op h -o $o/tune_h > $o/tune_h.log 2>&1; echo "tune h rc $? at $(el) s"; grep "tuned in" $o/tune_h.log; rm -f $o/tune_h/tune.html
if [ $(el) -lt 420 ]; then
  timeout $(( 580 - $(el) )) /tmp/jitsparse bench --l2 cold -q --builtin irregular_dirac_torusflip_scan_260mb -o $o/bench_dirac > $o/bench_dirac.log 2>&1; echo "dirac rc $? at $(el) s"; tail -5 $o/bench_dirac.log
fi
rm -f $o/*/bench.html; gzip $o/*.json $o/*/*.json 2>/dev/null
cd $OUT && tar czf g.tgz g && rm -rf g
