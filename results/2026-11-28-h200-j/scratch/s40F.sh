#!/usr/bin/env bash
# fortieth session, call F (e37f82e): the main job cold (fresh cubin
# cache, first tune of a fresh host) with run_variants packing what it runs; then `tune --op t` if time is left.
set -u
START=$(date +%s)
o=$OUT/f; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
export JITSPARSE_CACHE=/tmp/c; rm -rf $JITSPARSE_CACHE
timeout 150 /tmp/jitsparse tune -o $o/tune_n > $o/tune_n.log 2>&1; echo "tune n rc $? at $(el) s"
grep "tuned in" $o/tune_n.log
if [ $(el) -lt 125 ]; then
  timeout 140 /tmp/jitsparse tune --op t -o $o/tune_t > $o/tune_t.log 2>&1; echo "tune t rc $? at $(el) s"
  grep "tuned in" $o/tune_t.log
fi
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf f.tar.xz f && rm -rf f
