#!/usr/bin/env python3
"""Per-case times of two bench-add runs (bench_add.json[.xz]): ours in each, cuSPARSE in each, ratio.
Usage: cmp_add.py BASE.json[.xz] NEW.json[.xz]"""
import json, lzma, math, sys

def load(p):
    f = lzma.open(p, 'rt') if p.endswith('.xz') else open(p)
    d = json.load(f)
    rows = d['rows'] if isinstance(d, dict) else d
    return {(r['matrix'], r['precision']): r for r in rows}

a, b = load(sys.argv[1]), load(sys.argv[2])
logs = []
for k in sorted(a):
    if k not in b:
        continue
    ta, tb = a[k]['hisparse']['median_us'], b[k]['hisparse']['median_us']
    logs.append(math.log(ta / tb))
    print(f'{k[0]:24s} {k[1]} base {ta:9.1f} new {tb:9.1f} gain {ta / tb:5.3f}  cuSPARSE {a[k]["cusparse"]["median_us"]:9.1f} / {b[k]["cusparse"]["median_us"]:9.1f}  x{b[k]["speedup_vs_cusparse"]:.2f}')
print(f'geomean gain {math.exp(sum(logs) / len(logs)):.3f} over {len(logs)}')
