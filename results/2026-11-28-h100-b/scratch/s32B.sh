#!/usr/bin/env bash
# thirty-second session, call B: the final HiSparse kernel rules (COO width compiled, wide entries loaded
# late beside CSR leaves, CSR chunks that do not spill) and the renumbered hisparse twin in the tuner:
# GPU cases of hisparse products, A + B, tuner, export; memcheck and racecheck; the main job cold (its time).
set -u
START=$(date +%s)
o=$OUT/b; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/c_tune timeout 200 /tmp/jitsparse tune -o $o/tune > $o/tune.log 2>&1; echo "tune rc $? at $(el) s"
tail -3 $o/tune.log
JITSPARSE_CACHE=/tmp/jj_tests timeout 260 /tmp/gpu_tests -tc="gpu spmv: hisparse*,gpu spmv: the hisparse*,gpu hisparse add*,gpu tuner*,gpu export*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
for t in "memcheck:gpu spmv: hisparse layouts (block3)" "memcheck:gpu spmv: hisparse layouts (real)" "racecheck:gpu spmv: hisparse layouts (real)"; do
  tool=${t%%:*}; tc=${t#*:}; n=$(echo "$tc" | tr -dc "a-z0-9")
  JITSPARSE_CACHE=/tmp/jj_tests timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/gpu_tests -tc="$tc" > "$o/sanitize_${tool}_$n.log" 2>&1; echo "sanitize $tool $tc rc $? at $(el) s"
  tail -2 "$o/sanitize_${tool}_$n.log"
done
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf b.tgz b && rm -rf b
