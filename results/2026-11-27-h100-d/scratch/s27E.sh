#!/usr/bin/env bash
# twenty-seventh session, call E: the final code. GPU cases of the tuner (quick tuning, selection) and of
# hisparse (the faster tree build); the main job cold (packing with the faster hisparse build, one-launch
# verdicts over 200 us only) with its tune.json; `tune --op h` cold.
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/je_tests timeout 200 carry/jitsparse_gpu_tests -tc="gpu tuner*,gpu spmv: hisparse layouts (real),gpu spmv: hisparse layouts (quaternion)" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"; tail -3 $o/gpu_tests.log
export JITSPARSE_CACHE=/tmp/je_main
carry/jitsparse tune -q -o $o/tune > $o/tune_main.log 2>&1; echo "tune rc $? at $(el) s"; grep "tuned in" $o/tune_main.log
cp $JITSPARSE_CACHE/tuning/*.json $o/ 2>/dev/null; gzip $o/*.json 2>/dev/null
export JITSPARSE_CACHE=/tmp/je_h
timeout $(( 585 - $(el) )) carry/jitsparse tune -q --op h -o $o/tune_h > $o/tune_h.log 2>&1; echo "tune h rc $? at $(el) s"; grep "tuned in" $o/tune_h.log
cd $OUT && tar czf e.tgz e && rm -rf e
