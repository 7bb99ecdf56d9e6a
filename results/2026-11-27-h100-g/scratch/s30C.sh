#!/usr/bin/env bash
# thirtieth session, call C: the final model (sorted twins with narrow forms). (1) evaluate --holdout main,
# then matrix, on call B's evaluated database (untimed picks timed); (2) the 250 MB irregular set never
# tuned: bench --no-tune --l2 cold with the main set's records only, start code (base) then this code,
# one host; (3) GPU cases "gpu tuner*".
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
db=NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
data="tests/data/real tests/data/graph tests/data/complex@complex"
xz -dc carry/db_b.json.xz > /tmp/db_b.json; mkdir -p /tmp/ev/tuning; cp /tmp/db_b.json /tmp/ev/tuning/$db
for h in main matrix; do
  JITSPARSE_CACHE=/tmp/ev timeout 150 /tmp/jitsparse evaluate --holdout $h --no-quick-timing --no-cusparse --budget 120s \
    $data -o $o/evaluate_$h > $o/evaluate_$h.log 2>&1; echo "evaluate $h rc $? at $(el) s"
  grep -A2 "^predictor" $o/evaluate_$h.log; grep "^irregular" $o/evaluate_$h.log | grep -v ":"
done
gzip -c /tmp/ev/tuning/$db > $o/db_evaluated.json.gz
for b in jitsparse_base jitsparse; do
  mkdir -p /tmp/m_$b/tuning; python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['matrices']=[r for r in d['matrices'] if r['domain'].startswith('builtin-')]; d['domains']=[x for x in d['domains'] if x['domain'].startswith('builtin-')]; json.dump(d,open(sys.argv[2],'w'))" /tmp/db_b.json /tmp/m_$b/tuning/$db
  JITSPARSE_CACHE=/tmp/m_$b timeout 150 /tmp/$b bench --no-tune --builtin irregular --l2 cold --samples 21 -o $o/bench_$b > $o/bench_$b.log 2>&1
  echo "bench $b rc $? at $(el) s"; grep -A12 "^matrix  *prec  *ours" $o/bench_$b.log
done

rm -f $o/*/evaluate.html $o/*/bench.html; gzip $o/*/*.json 2>/dev/null
cd $OUT && tar czf c.tgz c && rm -rf c
