#!/usr/bin/env bash
# thirty-fourth session, call B: the wide hisparse rule as kept (hisparse256c2 on matrices of 16 strips of 256
# rows per SM in its own setups, 128x8-g32 unroll 2 and 4 with big strips from 4096, compiled while stage
# one is timed; no setup twins): the main job cold (its time and database), the tuned hisparse of --builtin
# large against cuSPARSE in the same run, op t tuned on --builtin large and its hisparse against cuSPARSE's
# implicit transpose, and the GPU tuner cases.
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/c_tune timeout 200 /tmp/jitsparse tune -o $o/tune > $o/tune.log 2>&1; echo "tune rc $? at $(el) s"
grep "tuned in" $o/tune.log
for f in /tmp/c_tune/tuning/*.json; do xz -c "$f" > $o/db_n_$(basename "$f").xz; done
JITSPARSE_CACHE=/tmp/c_tune timeout 120 /tmp/jitsparse bench -q --builtin large --no-tune --layout hisparse -o $o/bench_hisparse > $o/bench_hisparse.log 2>&1; echo "bench hisparse rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/c_tune timeout 150 /tmp/jitsparse tune --op t --builtin large -o $o/tune_t > $o/tune_t.log 2>&1; echo "tune t rc $? at $(el) s"
grep "tuned in" $o/tune_t.log
for f in /tmp/c_tune/tuning/*.json; do xz -c "$f" > $o/db_nt_$(basename "$f").xz; done
JITSPARSE_CACHE=/tmp/c_tune timeout 120 /tmp/jitsparse bench -q --op t --builtin large --no-tune --layout hisparse -o $o/bench_hisparse_t > $o/bench_hisparse_t.log 2>&1; echo "bench hisparse t rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/c_tune timeout 120 /tmp/jitsparse bench -q --op t --builtin large --no-tune -o $o/bench_t > $o/bench_t.log 2>&1; echo "bench t rc $? at $(el) s"
JITSPARSE_CACHE=/tmp/jj_tests timeout 150 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf b.tar.xz b && rm -rf b
