#!/usr/bin/env bash
# thirty-seventh session, call A (code e614293): issue 9's consolidated run, op n. The main job cold (tune
# time and database), then cold benches of the main set against cuSPARSE in the same run: the winners
# (our best A x) and the fastest tuned hisparse variant (--layout hisparse); then op t tuned on the main
# set if time is left (its database is kept for call B).
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
export JITSPARSE_CACHE=/tmp/c_tune
timeout 170 /tmp/jitsparse tune -o $o/tune > $o/tune.log 2>&1; echo "tune rc $? at $(el) s"
grep "tuned in" $o/tune.log
for f in /tmp/c_tune/tuning/*.json; do xz -c "$f" > $o/db_n_$(basename "$f").xz; done
timeout 150 /tmp/jitsparse bench -q --no-tune --l2 cold -o $o/bench_n_win > $o/bench_n_win.log 2>&1; echo "bench n winners rc $? at $(el) s"
timeout 150 /tmp/jitsparse bench -q --no-tune --l2 cold --layout hisparse -o $o/bench_n_hi > $o/bench_n_hi.log 2>&1; echo "bench n hisparse rc $? at $(el) s"
if [ $(el) -lt 400 ]; then
  timeout $(( 575 - $(el) )) /tmp/jitsparse tune --op t -o $o/tune_t > $o/tune_t.log 2>&1; echo "tune t rc $? at $(el) s"
  grep "tuned in" $o/tune_t.log
  for f in /tmp/c_tune/tuning/*.json; do xz -c "$f" > $o/db_nt_$(basename "$f").xz; done
fi
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf a.tar.xz a && rm -rf a
