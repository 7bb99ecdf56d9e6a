#!/usr/bin/env bash
# thirty-eighth session, call H (the merge fix): call G's two tuners at once again (the tiny set, f32 and f64
# apart, one database): every record must be complete; then the same with the small set added by a third
# tuner while a fourth runs the tiny set's f32 again (resuming nothing: all there).
set -u
START=$(date +%s)
o=$OUT/h; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
export JITSPARSE_CACHE=/tmp/ch
db=/tmp/ch/tuning/NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
count() { python3 -c "import json,sys,collections; d=json.load(open(sys.argv[1])); c=collections.Counter((m['precision'], m['complete']) for m in d['matrices']); print('  records', len(d['matrices']), dict(c), 'domains', len(d['domains']))" $db; }
/tmp/jitsparse tune --builtin tiny -p f32 -q -o $o/two_f32 > $o/two_f32.log 2>&1 & A=$!
/tmp/jitsparse tune --builtin tiny -p f64 -q -o $o/two_f64 > $o/two_f64.log 2>&1 & B=$!
wait $A; echo "f32 rc $?"; wait $B; echo "f64 rc $? at $(el) s"; count
/tmp/jitsparse tune --builtin small -q -o $o/small > $o/small.log 2>&1 & C=$!
/tmp/jitsparse tune --builtin tiny -p f32 -q -o $o/again > $o/again.log 2>&1 & D=$!
wait $C; echo "small rc $?"; wait $D; echo "tiny again rc $? at $(el) s"; count
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf h.tar.xz h && rm -rf h
