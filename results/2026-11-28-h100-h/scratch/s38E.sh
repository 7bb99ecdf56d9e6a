#!/usr/bin/env bash
# thirty-eighth session, call E (a39ea1f): NVRTC 13 keeps a cache of its own in the driver's compute cache
# (~/.nv/ComputeCache; call D found 1,226 entries after one tune), which is why a host's later tunes wait
# about a third as long for NVRTC as its first. Here every tune is a first one for NVRTC's cache (a fresh
# CUDA_CACHE_PATH) and for jitsparse's (a fresh JITSPARSE_CACHE): NVRTC's cache on (default) against off
# (-no-cache, through JITSPARSE_NVRTC_FLAGS), alternated twice, `tune --builtin small`; then one tune whose
# NVRTC cache is warm (the first run's path again) to measure what a hit saves.
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
echo "uptime $(cut -d' ' -f1 /proc/uptime) s"
run() {  # name nvrtc-cache-dir flags
  local name=$1 nv=$2 flags=$3
  JITSPARSE_NVRTC_FLAGS="$flags" CUDA_CACHE_PATH=$nv JITSPARSE_CACHE=/tmp/js_$name timeout 150 /tmp/jitsparse tune --builtin small -q -o $o/$name > $o/$name.log 2>&1
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['compile']; s=d['seconds']; print(sys.argv[2], 'wall', round(d['wall_seconds'],1), 'nvrtc waits', round(s['compiling'],1), 'programs', c['programs'], 'nvrtc s', round(c['seconds'],1), 'per program', round(c['seconds']/max(1,c['programs']),3))" $o/$name/tune.json "$name"
  echo "  $(find $nv -type f 2>/dev/null | wc -l) files in $nv"
}
run on1 /tmp/nv_on1 ""
run off1 /tmp/nv_off1 "-no-cache"
run on2 /tmp/nv_on2 ""
run off2 /tmp/nv_off2 "-no-cache"
run on1_again /tmp/nv_on1 ""
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf e.tar.xz e && rm -rf e
