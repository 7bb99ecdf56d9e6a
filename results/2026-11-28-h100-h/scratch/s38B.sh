#!/usr/bin/env bash
# thirty-eighth session, call B (3742a0b, same host as call A: its database in /tmp/c_jitsparse): A^T x and
# A^H x over ../shared/data's matrices (tests/data holds the same files), never tuned (the model's first
# choice for op t / h, learnt from call A's main set), warm, against cuSPARSE in the same run; the GPU
# cases of the tuner (it saves the database) and of A + B (e7f10ca's launch errors); bench-add's jsonl.
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
[ -x /tmp/jitsparse ] || { for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done; }
db=/tmp/c_jitsparse/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
if [ -f $db ]; then echo "warm host"; else mkdir -p /tmp/c_jitsparse/tuning; xz -dc carry/db_nth.json.xz > $db; echo "fresh host"; fi
export JITSPARSE_CACHE=/tmp/c_jitsparse
data="tests/data/real tests/data/graph tests/data/complex@complex"
for op in t h; do
  timeout 150 /tmp/jitsparse bench -q --no-tune --op $op $data -o $o/bench_data_$op > $o/bench_data_$op.log 2>&1; echo "bench data $op rc $? at $(el) s"
done
JITSPARSE_CACHE=/tmp/c_tests timeout 200 /tmp/gpu_tests -tc="gpu tuner*,gpu hisparse add*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
tail -4 $o/gpu_tests.log
timeout 100 /tmp/jitsparse bench-add --builtin small -o $o/add_small > $o/add_small.log 2>&1; echo "add small rc $? at $(el) s"
tail -3 $o/add_small.log; wc -l $o/add_small/bench_add.jsonl
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf b.tar.xz b && rm -rf b
