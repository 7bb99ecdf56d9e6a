#!/usr/bin/env bash
# thirty-sixth session, call E: B's first node line prefetched into L1 (prefetch.global.L1) while A's
# entries or children are marked (leaf warp kernel and inner levels), against the committed 658c69b
# (jitsparse_c): "gpu hisparse add*" of the prefetch code; bench-add op n on the large and tiny sets,
# the two binaries alternating; bench-add --op t --builtin all of 658c69b.
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_c gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 100 /tmp/gpu_tests -tc="gpu hisparse add*" > $o/gpu_tests.log 2>&1; echo "gpu tests rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests.log | head -12
for s in tiny large; do
  for b in jitsparse_c jitsparse; do
    JITSPARSE_CACHE=/tmp/c_$b timeout 80 /tmp/$b bench-add --builtin $s -o $o/add_n_${s}_$b > $o/add_n_${s}_$b.log 2>&1; echo "add $s $b rc $? at $(el) s"
    tail -3 $o/add_n_${s}_$b.log | head -1
  done
done
left=$(( 325 - $(el) ))
JITSPARSE_CACHE=/tmp/c_jitsparse_c timeout $left /tmp/jitsparse_c bench-add --op t -o $o/add_t > $o/add_t.log 2>&1; echo "add t rc $? at $(el) s"
tail -3 $o/add_t.log
xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf e.tar.xz e && rm -rf e
