#!/usr/bin/env bash
# twenty-ninth session, call C: is the scanned Dirac's f32 winner (27th: sell32s64 51.4 us warm / 53.8 cold;
# 28th: csr tpr8 58.7 / 58.0) tune-to-tune noise? Tune it (f32 only) three times on this host, each with a
# fresh cache, keep each database; then bench each run's winner cold in one bench run.
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
m=irregular_dirac_torusflip_scan_260mb
for run in 1 2 3; do
  [ $(el) -lt 380 ] || break
  JITSPARSE_CACHE=/tmp/jc_$run timeout 150 /tmp/jitsparse tune -q -p f32 --builtin $m -o $o/tune_$run > $o/tune_$run.log 2>&1; echo "tune $run rc $? at $(el) s"
  grep -E "f32:|tuned in" $o/tune_$run.log | cut -c1-220
  cp /tmp/jc_$run/tuning/*.json $o/db_$run.json; rm -f $o/tune_$run/tune.html
done
args=""
for run in 1 2 3; do [ -f $o/db_$run.json ] && args="$args --variant $(python3 -c "import json;d=json.load(open('$o/db_$run.json'));print([r['winner'] for r in d['matrices'] if r['precision']=='f32'][0])")"; done
echo "winners:$args"
JITSPARSE_CACHE=/tmp/jc_1 timeout $(( 580 - $(el) )) /tmp/jitsparse bench --l2 cold -q -p f32 --builtin $m $args -o $o/bench > $o/bench.log 2>&1; echo "bench rc $? at $(el) s"
grep -E "jitsparse|complex2x2" $o/bench.log | cut -c1-170
rm -f $o/*/bench.html; gzip $o/*.json $o/*/*.json 2>/dev/null
cd $OUT && tar czf c.tgz c && rm -rf c
