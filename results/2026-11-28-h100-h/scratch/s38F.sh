#!/usr/bin/env bash
# thirty-eighth session, call F (7th commit of the session: the database save and NVRTC's cache off): the
# tune times a new machine sees. A fresh host; the main job (`jitsparse tune`), then `tune --op t` and
# `tune --op h` on its database, each a cold cubin cache of its own (so no tune reuses another's kernels,
# as none can on a new machine); NVRTC's cache must stay empty.
set -u
START=$(date +%s)
o=$OUT/f; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
echo "uptime $(cut -d' ' -f1 /proc/uptime) s"
db=NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
prev=""
for op in n t h; do
  c=/tmp/cf_$op; rm -rf $c; mkdir -p $c/tuning
  [ -n "$prev" ] && cp $prev/tuning/$db $c/tuning/$db
  JITSPARSE_CACHE=$c timeout 170 /tmp/jitsparse tune --op $op -o $o/tune_$op > $o/tune_$op.log 2>&1; echo "tune $op rc $? at $(el) s"
  grep "tuned in" $o/tune_$op.log
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['compile']; s=d['seconds']; t={}; [t.__setitem__(k, t.get(k,0)+v) for j in s['by_job'] for k,v in j.items() if isinstance(v,float)]; print('  programs', c['programs'], 'from cache', c['from_cache'], 'per program', round(c['seconds']/max(1,c['programs']),3), {k: round(v,1) for k,v in t.items()})" $o/tune_$op/tune.json
  prev=$c
done
echo "NVRTC cache files: $(find $HOME/.nv -type f 2>/dev/null | wc -l)"
xz -c $prev/tuning/$db > $o/db_nth.json.xz
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf f.tar.xz f && rm -rf f
