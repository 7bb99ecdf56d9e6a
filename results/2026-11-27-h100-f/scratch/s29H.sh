#!/usr/bin/env bash
# twenty-ninth session, call H: unrolled twins for real f32 at any size, A/B on one host against 7443baa.
# (1) tests/data's real matrices and graphs tuned in f32 with base, then new (fresh caches); (2) the main
# job cold with base, then new. Databases kept: the winners are compared record by record.
set -u
START=$(date +%s)
o=$OUT/h; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
xz -dc carry/jitsparse_base.xz > /tmp/jitsparse_base; chmod +x /tmp/jitsparse_base
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
for which in base new; do
  bin=/tmp/jitsparse; [ $which = base ] && bin=/tmp/jitsparse_base
  JITSPARSE_CACHE=/tmp/jh_data_$which timeout 140 $bin tune -q -p f32 tests/data/real tests/data/graph -o $o/data_$which > $o/data_$which.log 2>&1; echo "data $which rc $? at $(el) s"; grep "tuned in" $o/data_$which.log
  cp /tmp/jh_data_$which/tuning/*.json $o/db_data_$which.json; rm -f $o/data_$which/tune.html
done
for which in base new; do
  bin=/tmp/jitsparse; [ $which = base ] && bin=/tmp/jitsparse_base
  left=$(( 585 - $(el) )); [ $left -gt 60 ] || break
  JITSPARSE_CACHE=/tmp/jh_main_$which timeout $left $bin tune -q -o $o/main_$which > $o/main_$which.log 2>&1; echo "main $which rc $? at $(el) s"; grep "tuned in" $o/main_$which.log
  cp /tmp/jh_main_$which/tuning/*.json $o/db_main_$which.json; rm -f $o/main_$which/tune.html
done
gzip $o/*.json $o/*/*.json 2>/dev/null
cd $OUT && tar czf h.tgz h && rm -rf h
