#!/usr/bin/env bash
# thirty-eighth session, call D (a39ea1f): is a fresh host's slow first tune the host's CPUs (slow for a
# while after boot) or something NVRTC keeps between processes? A CPU probe (16 processes counting for 1 s)
# at boot and 40 s later; files under HOME and /tmp before and after the first tune; then the first tune
# (--builtin small, fresh cubin cache) 40 s after boot, and the probe once more.
set -u
START=$(date +%s)
o=$OUT/d; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
probe() {
  python3 - <<'PY'
import multiprocessing as mp, time
def count(_):
    n = 0; end = time.perf_counter() + 1.0
    while time.perf_counter() < end: n += 1
    return n
with mp.Pool(16) as p: r = p.map(count, range(16))
print('probe: %.1f M loop steps in 1 s over 16 processes (min %.2f M, max %.2f M)' % (sum(r) / 1e6, min(r) / 1e6, max(r) / 1e6))
PY
  grep MHz /proc/cpuinfo | awk '{s+=$4; n++} END {printf "mean MHz %.0f over %d cpus\n", s/n, n}'
}
echo "uptime $(cut -d' ' -f1 /proc/uptime) s"; probe
xz -dc carry/jitsparse.xz > /tmp/jitsparse; chmod +x /tmp/jitsparse
find $HOME /tmp /var/tmp -xdev -newer /proc/1 2>/dev/null | grep -v "^/tmp/jitsparse$" | sort > $o/files_before.txt
sleep $(( 40 - $(el) > 0 ? 40 - $(el) : 0 ))
echo "uptime $(cut -d' ' -f1 /proc/uptime) s"; probe
vmstat -w 1 > $o/vmstat.txt 2>&1 & VM=$!
JITSPARSE_CACHE=/tmp/cd1 timeout 150 /tmp/jitsparse tune --builtin small -q -o $o/t1 > $o/t1.log 2>&1
grep "tuned in" $o/t1.log
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['compile']; print('programs', c['programs'], 'nvrtc s', round(c['seconds'],1), 'per program', round(c['seconds']/max(1,c['programs']),3))" $o/t1/tune.json
kill $VM
find $HOME /tmp /var/tmp -xdev -newer /proc/1 2>/dev/null | grep -v "^/tmp/cd1\|^/tmp/jitsparse$" | sort > $o/files_after.txt
diff $o/files_before.txt $o/files_after.txt | head -30
echo "uptime $(cut -d' ' -f1 /proc/uptime) s"; probe
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf d.tar.xz d && rm -rf d
