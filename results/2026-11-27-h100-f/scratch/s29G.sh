#!/usr/bin/env bash
# twenty-ninth session, call G: policy_schedule_twins, A/B on one host against 7443baa ("base").
# (1) the scanned Dirac f32: base once, new twice, winners benched cold in one run; (2) the 250 MB
# irregular set tuned and benched cold with base, then with new; (3) the main job cold with new.
set -u
START=$(date +%s)
o=$OUT/g; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
xz -dc carry/jitsparse_base.xz > /tmp/jitsparse_base; chmod +x /tmp/jitsparse_base
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
m=irregular_dirac_torusflip_scan_260mb
for run in base new1 new2; do
  bin=/tmp/jitsparse; [ $run = base ] && bin=/tmp/jitsparse_base
  JITSPARSE_CACHE=/tmp/jg_$run timeout 100 $bin tune -q -p f32 --builtin $m -o $o/dirac_$run > $o/dirac_$run.log 2>&1; echo "tune $run rc $? at $(el) s"
  grep -E "f32:" $o/dirac_$run.log | cut -c1-200
  cp /tmp/jg_$run/tuning/*.json $o/dirac_db_$run.json; rm -f $o/dirac_$run/tune.html
done
args=""
for run in base new1 new2; do args="$args --variant $(python3 -c "import json;d=json.load(open('$o/dirac_db_$run.json'));print([r['winner'] for r in d['matrices'] if r['precision']=='f32'][0])")"; done
JITSPARSE_CACHE=/tmp/jg_new1 timeout 60 /tmp/jitsparse bench --l2 cold -q -p f32 --builtin $m $args -o $o/dirac_bench > $o/dirac_bench.log 2>&1; echo "bench rc $? at $(el) s"
grep -E "jitsparse" $o/dirac_bench.log | cut -c1-170
for which in base new; do
  bin=/tmp/jitsparse; [ $which = base ] && bin=/tmp/jitsparse_base
  JITSPARSE_CACHE=/tmp/jg_irr_$which timeout 200 $bin bench --l2 cold -q --builtin irregular -o $o/irregular_$which > $o/irregular_$which.log 2>&1; echo "irregular $which rc $? at $(el) s"
  tail -10 $o/irregular_$which.log
  cp /tmp/jg_irr_$which/tuning/*.json $o/db_irregular_$which.json 2>/dev/null
done
left=$(( 585 - $(el) ))
[ $left -gt 60 ] && { JITSPARSE_CACHE=/tmp/jg_main timeout $left /tmp/jitsparse tune -q -o $o/tune_main > $o/tune_main.log 2>&1; echo "tune main rc $? at $(el) s"; grep "tuned in" $o/tune_main.log; cp /tmp/jg_main/tuning/*.json $o/db_main.json; rm -f $o/tune_main/tune.html; }
rm -f $o/*/bench.html; gzip $o/*.json $o/*/*.json 2>/dev/null
cd $OUT && tar czf g.tgz g && rm -rf g
