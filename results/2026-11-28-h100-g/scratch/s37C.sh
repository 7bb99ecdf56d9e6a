#!/usr/bin/env bash
# thirty-seventh session, call C: the thirty-sixth session's big_list_carries_nodes.patch (the big leaf list
# holds each item's two node pointers and slot: one dependent round trip less in the warp kernel) against
# e614293 (base) on one host. GPU tests of every hisparse case with the patched binary; bench-add op n
# (B perturbed) base then patched; bench-add --b-pattern same patched then base.
set -u
START=$(date +%s)
o=$OUT/c; mkdir -p $o
el() { echo $(( $(date +%s)-START )); }
for b in jitsparse jitsparse_p gpu_tests_p; do xz -dc carry/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
JITSPARSE_CACHE=/tmp/jj_tests timeout 200 /tmp/gpu_tests_p -tc="gpu spmv: hisparse*,gpu hisparse add*" > $o/gpu_tests_p.log 2>&1; echo "gpu tests (patched) rc $? at $(el) s"
grep -E "test cases|assertions|ERROR|FAILED" $o/gpu_tests_p.log | head -12
add() { local name=$1 bin=$2; shift 2; JITSPARSE_CACHE=/tmp/c_$bin timeout 150 /tmp/$bin bench-add "$@" -o $o/$name > $o/$name.log 2>&1; echo "$name rc $? at $(el) s"; tail -3 $o/$name.log | head -2; }
add add_n_base jitsparse
add add_n_p jitsparse_p
add add_same_p jitsparse_p --b-pattern same
[ $(el) -lt 440 ] && add add_same_base jitsparse --b-pattern same
xz $o/*/*.json 2>/dev/null
cd $OUT && tar cJf c.tar.xz c && rm -rf c
