#!/usr/bin/env bash
# twenty-ninth session, call D: the sorted sell's window siblings (sorted_window_siblings).
# (1) the scanned Dirac f32 tuned once with the base binary (922b232) and twice with the new one, fresh
# caches, and the three winners benched cold in one run; (2) the main job cold with the new binary (tune
# time, winners); (3) the 250 MB irregular set tuned and benched cold with the new binary.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
xz -dc carry/jitsparse_base.xz > /tmp/jitsparse_base; chmod +x /tmp/jitsparse_base
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
m=irregular_dirac_torusflip_scan_260mb
for run in base new1 new2; do
  bin=/tmp/jitsparse; [ $run = base ] && bin=/tmp/jitsparse_base
  JITSPARSE_CACHE=/tmp/jd_$run timeout 100 $bin tune -q -p f32 --builtin $m -o $o/dirac_$run > $o/dirac_$run.log 2>&1; echo "tune $run rc $? at $(el) s"
  grep -E "f32:|tuned in" $o/dirac_$run.log | cut -c1-200
  cp /tmp/jd_$run/tuning/*.json $o/dirac_db_$run.json; rm -f $o/dirac_$run/tune.html
done
args=""
for run in base new1 new2; do args="$args --variant $(python3 -c "import json;d=json.load(open('$o/dirac_db_$run.json'));print([r['winner'] for r in d['matrices'] if r['precision']=='f32'][0])")"; done
JITSPARSE_CACHE=/tmp/jd_new1 timeout 60 /tmp/jitsparse bench --l2 cold -q -p f32 --builtin $m $args -o $o/dirac_bench > $o/dirac_bench.log 2>&1; echo "bench rc $? at $(el) s"
grep -E "jitsparse|complex2x2" $o/dirac_bench.log | cut -c1-170
JITSPARSE_CACHE=/tmp/jd_main timeout 160 /tmp/jitsparse tune -q -o $o/tune_main > $o/tune_main.log 2>&1; echo "tune main rc $? at $(el) s"; grep "tuned in" $o/tune_main.log
cp /tmp/jd_main/tuning/*.json $o/db_main.json; rm -f $o/tune_main/tune.html
JITSPARSE_CACHE=/tmp/jd_irr timeout $(( 585 - $(el) )) /tmp/jitsparse bench --l2 cold -q --builtin irregular -o $o/bench_irregular > $o/bench_irregular.log 2>&1; echo "bench irregular rc $? at $(el) s"
tail -12 $o/bench_irregular.log
cp /tmp/jd_irr/tuning/*.json $o/db_irregular.json 2>/dev/null
rm -f $o/*/bench.html; gzip $o/*.json $o/*/*.json 2>/dev/null
cd $OUT && tar czf d.tgz d && rm -rf d
