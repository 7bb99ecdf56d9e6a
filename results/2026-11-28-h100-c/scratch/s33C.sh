#!/usr/bin/env bash
# thirty-third session, call C: batched leaves as a schedule option (-b) searched by the tuner: the main
# job cold (its time; does -b win anywhere), GPU cases of the hisparse products (5 setups, two with -b; the
# small-leaf cases with -b) and the GPU tuner cases; memcheck and racecheck of the small-leaf/batched cases.
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/c_tune timeout 200 /tmp/jitsparse tune -o $o/tune > $o/tune.log 2>&1; echo "tune rc $? at $(el) s"
tail -3 $o/tune.log
for f in /tmp/c_tune/tuning/*.json; do xz -c "$f" > $o/db_$(basename "$f").xz; done
JITSPARSE_CACHE=/tmp/jj_tests timeout 230 /tmp/gpu_tests -tc="gpu spmv: hisparse*,gpu spmv: the hisparse*,gpu tuner*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
for tool in memcheck racecheck; do
  JITSPARSE_CACHE=/tmp/jj_tests timeout 75 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/gpu_tests -tc="gpu spmv: hisparse small leaves per lane and batched (real),gpu spmv: hisparse small leaves per lane and batched (quaternion)" > "$o/sanitize_$tool.log" 2>&1; echo "sanitize $tool rc $? at $(el) s"
  tail -2 "$o/sanitize_$tool.log"
done
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf c.tgz c && rm -rf c
