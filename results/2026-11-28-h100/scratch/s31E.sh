#!/usr/bin/env bash
# thirty-first session, call E: HiSparse A + B (bench-add, warm, --builtin all) with CSR leaves (the new
# default of HiSparseOptions) and without (--no-csr-leaves, the format before), op n then op t.
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
for op in n t; do
  JITSPARSE_CACHE=/tmp/c_e timeout 200 /tmp/jitsparse bench-add --op $op -o $o/add_${op}_csr > $o/add_${op}_csr.log 2>&1; echo "add $op csr rc $? at $(el) s"
  JITSPARSE_CACHE=/tmp/c_e timeout 200 /tmp/jitsparse bench-add --op $op --no-csr-leaves -o $o/add_${op}_coo > $o/add_${op}_coo.log 2>&1; echo "add $op coo rc $? at $(el) s"
  [ $(el) -gt 330 ] && break
done
xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf e.tgz e && rm -rf e
