#!/usr/bin/env bash
# twenty-eighth session, call D: which of the two changes of call C costs NVRTC time. One binary with two
# scratch knobs (JITSPARSE_AB_NO_FOLLOWING, JITSPARSE_AB_FIXED_GRAPHS; not committed) and call B's binary
# as base. Cold op n tunes: both, following only, graph fitting only, base, both again.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in base ab; do xz -dc carry/$b.xz > /tmp/jitsparse_$b; chmod +x /tmp/jitsparse_$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1; nproc >> $o/gpu.txt; lscpu | grep -E "Thread|Core|Socket|Model name" >> $o/gpu.txt
run() {  # binary name timeout [env...]
  local b=$1 name=$2 t=$3; shift 3
  export JITSPARSE_CACHE=/tmp/jd_$name
  env "$@" timeout $t /tmp/jitsparse_$b tune -q -o $o/$name > $o/$name.log 2>&1; echo "$name rc $? at $(el) s"; grep "tuned in" $o/$name.log
  cp $JITSPARSE_CACHE/tuning/*.json $o/$name/db.json 2>/dev/null; rm -f $o/$name/tune.html; gzip $o/$name/*.json 2>/dev/null
}
run ab both1 130 X=1
run ab following 130 JITSPARSE_AB_FIXED_GRAPHS=1
run ab fitting 130 JITSPARSE_AB_NO_FOLLOWING=1
run base base 130 X=1
left=$(( 585 - $(el) )); if [ $left -gt 100 ]; then run ab both2 $left X=1; fi
cd $OUT && tar czf d.tgz d && rm -rf d
