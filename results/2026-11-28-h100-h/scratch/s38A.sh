#!/usr/bin/env bash
# thirty-eighth session, call A: the database save (3742a0b) against the start code (684617a) on one host,
# both `tune --op h` cold (fresh cubin cache) on the thirty-seventh session's database of op n and t (as
# that session's op h tune ran: n, t and h records in the file it saves), this code first (a fresh host's
# first tune is the slow one); then issue 10's cold benches of the main set from this code's database:
# op t, op h, op n (our best A x), op n's fastest hola variant and its fastest csr variant.
set -u
START=$(date +%s)
o=$OUT/a; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_base gpu_tests; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
db=NVIDIA_H100_80GB_HBM3_sm_90_132sm.json
for b in jitsparse jitsparse_base; do
  rm -rf /tmp/c_$b; mkdir -p /tmp/c_$b/tuning; xz -dc carry/db_nt.json.xz > /tmp/c_$b/tuning/$db
  JITSPARSE_CACHE=/tmp/c_$b timeout 170 /tmp/$b tune --op h -o $o/tune_h_$b > $o/tune_h_$b.log 2>&1; echo "tune h $b rc $? at $(el) s"
  grep "tuned in" $o/tune_h_$b.log
done
export JITSPARSE_CACHE=/tmp/c_jitsparse
xz -c /tmp/c_jitsparse/tuning/$db > $o/db_nth.json.xz
b() { local name=$1; shift; timeout 120 /tmp/jitsparse bench -q --no-tune --l2 cold "$@" -o $o/$name > $o/$name.log 2>&1; echo "$name rc $? at $(el) s"; }
b bench_t --op t
b bench_h --op h
b bench_n
b bench_n_hola --layout hola
[ $(el) -lt 530 ] && b bench_n_csr --layout csr
rm -f $o/*/*.html; xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf a.tar.xz a && rm -rf a
