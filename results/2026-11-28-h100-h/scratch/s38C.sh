#!/usr/bin/env bash
# thirty-eighth session, call C (a39ea1f): why a host's first tune waits about twice as long for NVRTC.
# The same cold tune (--builtin small, a fresh cubin cache each time) three times on a fresh host, with
# vmstat every second and the busiest processes 10 s into each run, and NVRTC's seconds per program from
# each tune.json.
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
cat /proc/loadavg; uptime
ps aux --sort=-%cpu | head -12 > $o/ps_start.txt
vmstat -w 1 > $o/vmstat.txt 2>&1 & VM=$!
for b in jitsparse; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
echo "unpacked at $(el) s"
for i in 1 2 3; do
  echo "run $i starts at $(el) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
  (sleep 10; ps aux --sort=-%cpu | head -25 > $o/ps_run$i.txt) &
  JITSPARSE_CACHE=/tmp/cc$i timeout 150 /tmp/jitsparse tune --builtin small -q -o $o/t$i > $o/t$i.log 2>&1
  grep "tuned in" $o/t$i.log
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['compile']; s=d['seconds']; print('run', sys.argv[2], 'programs', c['programs'], 'nvrtc s', round(c['seconds'],1), 'per program', round(c['seconds']/max(1,c['programs']),3), 'ahead', s.get('compiling_ahead'))" $o/t$i/tune.json $i
done
kill $VM
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf c.tar.xz c && rm -rf c
