#!/usr/bin/env bash
# thirty-second session, call E: the renumbered hisparse twin's schedule. On the randomly numbered
# dirac_irregular and helmholtz_irregular, hisparse64c2 renumbered (@rcm) in the stage-one small-leaves
# setup the tuner keeps (128x4-g16-big4096-s), the same setup without small leaves, and 128x8-g32-u1.
set -u
START=$(date +%s)
o=$OUT/e; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
V=""
for e in quaternion complex; do for p in f32 f64; do
  for s in hisparse-128x4-g16-big4096-s hisparse-128x4-g16-big4096 hisparse-128x8-g32-big4096-u1 hisparse-128x4-g32-big4096-u1; do
    V="$V --variant $e.$p/hisparse64c2-aos-aos/$s@rcm"; done
done; done
for m in dirac_irregular helmholtz_irregular; do
  JITSPARSE_CACHE=/tmp/c_e timeout 90 /tmp/jitsparse bench -q --builtin $m $V -o $o/$m > $o/$m.log 2>&1; echo "$m rc $? at $(el) s"
done
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar czf e.tgz e && rm -rf e
