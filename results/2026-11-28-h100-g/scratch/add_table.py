#!/usr/bin/env python3
"""Issue 9's A + B table: per matrix and precision, HiSparse and cuSPARSE times and speedups from several
bench-add runs (bench_add.json[.xz]) named on the command line as LABEL=PATH."""
import json, lzma, math, sys

def load(p):
    d = json.load(lzma.open(p, 'rt') if p.endswith('.xz') else open(p))
    return {(r['matrix'], r['precision']): r for r in d['rows']}

runs = [(a.split('=', 1)[0], load(a.split('=', 1)[1])) for a in sys.argv[1:]]
head = '| matrix | prec |' + ''.join(f' {l} ours us | {l} cuSPARSE us | {l} speedup |' for l, _ in runs)
print(head)
print('|' + ' --- |' * (2 + 3 * len(runs)))
keys = sorted(set().union(*[set(r) for _, r in runs]))
sp = {l: [] for l, _ in runs}
for k in keys:
    cells = []
    for l, r in runs:
        x = r.get(k)
        if not x or x['hisparse'].get('status', 'ok') != 'ok' or x['cusparse'].get('status') != 'ok':
            cells += ['-', '-', '-']
            continue
        cu = x['cusparse']['median_us']  # op t/h: csr2csc included (convert_us is that part alone)
        s = x['speedup_vs_cusparse']
        sp[l].append(s)
        cells += [f"{x['hisparse']['median_us']:.1f}", f'{cu:.1f}', f'{s:.2f}x']
    print(f'| {k[0]} | {k[1]} | ' + ' | '.join(cells) + ' |')
print()
for l, v in sp.items():
    gm = math.exp(sum(map(math.log, v)) / len(v))
    print(f'{l}: geomean {gm:.2f}x over {len(v)}, {sum(x >= 3 for x in v)} at 3x, {sum(x < 1 for x in v)} below 1x, '
          f'min {min(v):.2f}x, max {max(v):.2f}x')
