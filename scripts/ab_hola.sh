#!/usr/bin/env bash
# A/B of hola kernels: the same hola variants of every entry type, timed cold over the main set by each
# binary given (one bench per binary, in turn, on the same GPU), so kernel versions compare in one call.
# Usage: scripts/ab_hola.sh OUT_DIR NAME=BINARY...   (each BINARY is a jitsparse built with other templates)
# $EXTRA_VARIANTS (space-separated) adds variants to the list, e.g. renumbered ones ending in @rcm.
set -uo pipefail
out=$1; shift
mkdir -p "$out"
variants=()
for entry in real complex quaternion block3; do
  for p in f32 f64; do
    for s in hola-256x4-ept2 hola-256x4-ept4 hola-128x8-ept8 hola-128x8-ept16; do
      variants+=(--variant "$entry.$p/hola-aos-aos/$s")
    done
  done
done
for v in ${EXTRA_VARIANTS:-}; do variants+=(--variant "$v"); done
for pair in "$@"; do
  name=${pair%%=*} bin=${pair#*=}
  # each binary its own cubin cache: the templates differ, so cubins must not be shared
  JITSPARSE_CACHE=/tmp/ab-cache-$name "$bin" bench --l2 cold -q "${variants[@]}" -o "$out/ab_$name" >"$out/ab_$name.log" 2>&1
  echo "== $name: rc $?"
done
