#!/usr/bin/env bash
# thirty-ninth session, call C (cold-only finalists, experiment): the main job tuned cold with every
# measured variant of a matrix above L2/16 also timed cold (--cold-finalists 100000), so which warm rank
# holds the cold best can be read from the database; then the main set benched cold and warm.
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
export JITSPARSE_CACHE=/tmp/c_main
timeout 300 /tmp/jitsparse tune --cold-finalists 100000 -o $o/tune_n > $o/tune_n.log 2>&1; echo "tune rc $? at $(el) s"
grep "tuned in" $o/tune_n.log
xz -c /tmp/c_main/tuning/*.json > $o/db_n.json.xz
b() { local name=$1; shift; timeout 150 /tmp/jitsparse bench -q --no-tune "$@" -o $o/$name > $o/$name.log 2>&1; echo "$name rc $? at $(el) s"; }
b bench_cold --l2 cold
[ $(el) -lt 480 ] && b bench_warm --l2 warm
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf c.tar.xz c && rm -rf c
