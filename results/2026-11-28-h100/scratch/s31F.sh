#!/usr/bin/env bash
# thirty-first session, call F: the tune time of op t and op h with hisparse64c2r as the fourth hisparse
# layout (code of this session's last commit), cold caches, one run each.
set -u
START=$(date +%s)
o=$OUT/f; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
for op in t h; do
  JITSPARSE_CACHE=/tmp/c_$op timeout 250 /tmp/jitsparse tune --op $op -o $o/tune_$op > $o/tune_$op.log 2>&1; echo "tune $op rc $? at $(el) s"
  grep "tuned in" $o/tune_$op.log | tail -1
done
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf f.tgz f && rm -rf f
