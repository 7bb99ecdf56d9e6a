#!/usr/bin/env python3
"""Issue 10's tables from one host's cold benches (thirty-eighth session, call A) and the never-tuned
tests/data benches (call B). Main set: our best A x (the winner), A^T x and A^H x (their winners), cuSPARSE's
implicit transpose (best of CSR ALG1 / SELL with CUSPARSE_OPERATION_(CONJUGATE_)TRANSPOSE; for quaternions and
3x3 blocks only A^H x, on the expanded real CSR) and its best explicit path (csr2csc first, not timed); the
fastest tuned hola and csr variants of op n against CSR ALG1. Usage: issue10_table.py DIR_A DIR_B"""
import json, sys, math

def by_case(path):
    out = {}
    for l in open(path):
        if l.strip():
            r = json.loads(l)
            if r.get('status') == 'ok':
                out.setdefault((r['matrix'], r['precision']), []).append(r)
    return out

def ours(rs):
    r = [x for x in rs if x['is_jitsparse']]
    return (r[0]['median_us'], r[0]['variant']) if r else (None, None)

def best(rs, pred):
    t = [x['median_us'] for x in rs if not x['is_jitsparse'] and pred(x['method'])]
    return min(t) if t else None

def gm(v):
    v = [x for x in v if x]
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')

implicit = lambda s: s.endswith('-implicit')
explicit = lambda s: s.endswith('-explicit')
f = lambda x: f'{x:.1f}' if x else '-'
fr = lambda x: f'{x:.2f}x' if x else '-'
r = lambda n, d: (n / d) if n and d else None
kind = lambda v: v.rsplit('/', 1)[-1] if v else '-'

a, b = sys.argv[1], sys.argv[2]
n, t, h = (by_case(f'{a}/bench_{x}/bench.jsonl') for x in ('n', 't', 'h'))
hola, csr = by_case(f'{a}/bench_n_hola/bench.jsonl'), by_case(f'{a}/bench_n_csr/bench.jsonl')

print('| matrix | prec | A x us | A^T x us | kind | A^T / A x | implicit / A^T | explicit / A^T | A^H x us | A^H / A x | implicit / A^H | explicit / A^H |')
print('|' + ' --- |' * 12)
groups = {}
for key in sorted(n):
    m, p = key
    ax, _ = ours(n[key])
    at, vt = ours(t.get(key, []))
    ah, vh = ours(h.get(key, []))
    entry = n[key][0]['entry']
    two = entry in ('complex',) or m.startswith('graph')  # unsymmetric real (R-MAT) and complex: 2x
    vals = dict(tn=r(at, ax), ti=r(best(t.get(key, []), implicit), at), te=r(best(t.get(key, []), explicit), at),
                hn=r(ah, ax), hi=r(best(h.get(key, []), implicit), ah), he=r(best(h.get(key, []), explicit), ah))
    for k, v in vals.items():
        groups.setdefault((k, '2x' if two else '1.5x'), []).append(v)
    print(f'| {m} | {p} | {f(ax)} | {f(at)} | {kind(vt)} | {fr(vals["tn"])} | {fr(vals["ti"])} | {fr(vals["te"])} | '
          f'{f(ah)} | {fr(vals["hn"])} | {fr(vals["hi"])} | {fr(vals["he"])} |')
print()
names = dict(tn='A^T x / our A x', ti='implicit / A^T x', te='explicit / A^T x', hn='A^H x / our A x',
             hi='implicit / A^H x', he='explicit / A^H x')
for (k, g), v in sorted(groups.items()):
    v = [x for x in v if x]
    if v:
        print(f'{names[k]} ({g} group): geomean {gm(v):.2f}x, min {min(v):.2f}x, max {max(v):.2f}x over {len(v)}')
print()
print('| matrix | prec | entries | hola us | ALG1 / hola | best csr us | hola / best csr | our best A x us | hola / best |')
print('|' + ' --- |' * 9)
real_big, compound = [], []
for key in sorted(n):
    m, p = key
    ho, _ = ours(hola.get(key, []))
    cs, _ = ours(csr.get(key, []))
    ax, _ = ours(n[key])
    alg1 = best(n[key], lambda s: s == 'cusparse-csr-alg1')
    entry, nnz = n[key][0]['entry'], n[key][0]['nnz']
    if entry == 'real' and nnz > 300000:
        real_big.append(r(alg1, ho))
    if entry != 'real':
        compound.append(r(ho, cs))
    print(f'| {m} | {p} | {nnz} | {f(ho)} | {fr(r(alg1, ho))} | {f(cs)} | {fr(r(ho, cs))} | {f(ax)} | {fr(r(ho, ax))} |')
print()
v = [x for x in real_big if x]
print(f'hola against CSR ALG1, real matrices above 300k entries: geomean {gm(v):.2f}x, {min(v):.2f}-{max(v):.2f}x over {len(v)}')
v = [x for x in compound if x]
print(f'hola / our best csr, compound entries: geomean {gm(v):.2f}x, {min(v):.2f}-{max(v):.2f}x over {len(v)}')

for op in ('t', 'h'):
    d = by_case(f'{b}/bench_data_{op}/bench.jsonl')
    vi, ve, below = [], [], []
    for key in sorted(d):
        o, _ = ours(d[key])
        i, e = r(best(d[key], implicit), o), r(best(d[key], explicit), o)
        vi.append(i)
        ve.append(e)
        if (i and i < 1) or (e and e < 1):
            below.append(f'{key[0]} {key[1]} ({fr(i)} implicit, {fr(e)} explicit)')
    print(f'\ntests/data op {op}, never tuned, warm, {len(d)} cases: implicit / ours geomean {gm(vi):.2f}x '
          f'({min(x for x in vi if x):.2f}-{max(x for x in vi if x):.2f}x over {len([x for x in vi if x])}); '
          f'explicit / ours {gm(ve):.2f}x ({min(x for x in ve if x):.2f}-{max(x for x in ve if x):.2f}x)')
    print('  below 1x: ' + ('; '.join(below) if below else 'none'))
