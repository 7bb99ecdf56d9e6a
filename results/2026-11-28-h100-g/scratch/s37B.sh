#!/usr/bin/env bash
# thirty-seventh session, call B (code e614293): issue 9's consolidated run, op t and h, and A + B. Uses
# call A's database (op n and t tuned on the main set; carried as carry/db_nt.json.xz where the host is
# fresh). Cold benches in one run each: op t hisparse, op t winners, op n winners again (our A x on this
# host), op h tuned on the main set then its hisparse; bench-add op n (B perturbed) and op t.
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
export JITSPARSE_CACHE=/tmp/c_tune
db=/tmp/c_tune/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
if [ -f $db ]; then echo "warm host: database there"; else mkdir -p /tmp/c_tune/tuning; xz -dc carry/db_nt.json.xz > $db; echo "fresh host"; fi
b() { local name=$1; shift; timeout 150 /tmp/jitsparse bench -q --no-tune --l2 cold "$@" -o $o/$name > $o/$name.log 2>&1; echo "$name rc $? at $(el) s"; }
b bench_t_hi --op t --layout hisparse
b bench_t_win --op t
b bench_n_win
timeout 150 /tmp/jitsparse tune --op h -o $o/tune_h > $o/tune_h.log 2>&1; echo "tune h rc $? at $(el) s"
grep "tuned in" $o/tune_h.log
xz -c $db > $o/db_nth.json.xz
b bench_h_hi --op h --layout hisparse
timeout 150 /tmp/jitsparse bench-add -o $o/add_n > $o/add_n.log 2>&1; echo "add n rc $? at $(el) s"
tail -4 $o/add_n.log
[ $(el) -lt 440 ] && { timeout $(( 585 - $(el) )) /tmp/jitsparse bench-add --op t -o $o/add_t > $o/add_t.log 2>&1; echo "add t rc $? at $(el) s"; tail -4 $o/add_t.log; }
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf b.tar.xz b && rm -rf b
