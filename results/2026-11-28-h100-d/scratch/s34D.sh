#!/usr/bin/env bash
# thirty-fourth session, call D (the final code): call C with the wide kernels compiled ahead under their compiled names, so
# the searches find them (in call C they compiled them again); the main job cold (its time and database), then the start code's
# binary (e4d296b, jitsparse_base) and this one again on the same host (each with a fresh cache: the
# tune-time comparison), and the GPU tuner cases.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/c_tune timeout 200 /tmp/jitsparse tune -o $o/tune > $o/tune.log 2>&1; echo "tune rc $? at $(el) s"
grep "tuned in" $o/tune.log
for f in /tmp/c_tune/tuning/*.json; do xz -c "$f" > $o/db_n_$(basename "$f").xz; done
JITSPARSE_CACHE=/tmp/c_base timeout 200 /tmp/jitsparse_base tune -o $o/tune_base > $o/tune_base.log 2>&1; echo "tune base rc $? at $(el) s"
grep "tuned in" $o/tune_base.log
for f in /tmp/c_base/tuning/*.json; do xz -c "$f" > $o/db_base_$(basename "$f").xz; done
JITSPARSE_CACHE=/tmp/c_again timeout 200 /tmp/jitsparse tune -o $o/tune_again > $o/tune_again.log 2>&1; echo "tune again rc $? at $(el) s"
grep "tuned in" $o/tune_again.log
JITSPARSE_CACHE=/tmp/jj_tests timeout 150 /tmp/gpu_tests -tc="gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf d.tar.xz d && rm -rf d
