#!/usr/bin/env bash
# The folders are floors: each may include only itself and the floors below it (README.md, "A tour of the
# folders"). A lower floor reaching up (the generator needing the GPU runtime, the runtime needing the
# tuning database) fails here with the file and line.   Usage: scripts/check_layers.sh [ROOT]
set -euo pipefail
root=${1:-$(dirname "$0")/..}
declare -A allowed=(
  [core]="core"
  [io]="core io"
  [generator]="core generator"
  [runtime]="core generator runtime templates"
  [selection]="core generator runtime selection"
  [tuner]="core io generator runtime selection tuner"
  [bench]="core generator runtime bench"
  [templates]="jitsparse"
  [fuzz]="core io fuzz"
)
status=0
checked=0
for floor in "${!allowed[@]}"; do
  [ -d "$root/$floor" ] || continue
  while IFS= read -r -d '' file; do
    checked=$((checked + 1))
    # '#include "dir/...' lines; system headers (<...>) and same-folder names without a slash are fine.
    while IFS=: read -r line dir; do
      if [[ " ${allowed[$floor]} " != *" $dir "* ]]; then
        echo "${file#"$root"/}:$line: $floor/ includes \"$dir/...\"; $floor/ may include only: ${allowed[$floor]}" >&2
        status=1
      fi
    done < <(grep -noE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[A-Za-z0-9_]+/' "$file" |
             sed -E 's/^([0-9]+):.*"([A-Za-z0-9_]+)\/$/\1:\2/')
  done < <(find "$root/$floor" -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.cuh' -o -name '*.h' \) -print0)
done
if ((checked == 0)); then
  echo "check_layers: no source files under $root" >&2
  exit 2
fi
((status == 0)) && echo "check_layers: $checked files, every include goes down or sideways"
exit $status
