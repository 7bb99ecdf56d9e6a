#!/usr/bin/env python3
"""Issue 9's consolidated table from one host's cold benches (thirty-seventh session, calls A and B):
per matrix and precision, our best A x (winners), HiSparse A x / A^T x / A^H x, cuSPARSE's best A x,
its implicit transpose (best of CSR ALG1 / SELL implicit) and its best explicit path (conversion not
counted). Usage: issue9_table.py DIR_A DIR_B"""
import json, sys, math

def rows(path):
    return [json.loads(l) for l in open(path) if l.strip()]

def by_case(path):
    out = {}
    for r in rows(path):
        if r.get('status') != 'ok':
            continue
        out.setdefault((r['matrix'], r['precision']), []).append(r)
    return out

a, b = sys.argv[1], sys.argv[2]
win = by_case(f'{b}/bench_n_win/bench.jsonl')
hin = by_case(f'{a}/bench_n_hi/bench.jsonl')
hit = by_case(f'{b}/bench_t_hi/bench.jsonl')
hih = by_case(f'{b}/bench_h_hi/bench.jsonl')

def ours(rs):
    r = [x for x in rs if x['is_jitsparse']]
    return r[0]['median_us'] if r else None

def best(rs, pred):
    t = [x['median_us'] for x in rs if not x['is_jitsparse'] and pred(x['method'])]
    return min(t) if t else None

def gm(v):
    v = [x for x in v if x]
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')

print('| matrix | prec | best A x us | hi A x us | hi/best | cuSP A x | cuSP/hi A x | hi A^T x us | A^T/our A x | vs implicit | vs explicit | hi A^H x us | A^H vs implicit | A^H vs explicit |')
print('|' + ' --- |' * 14)
cols = {k: [] for k in ('hx', 'hc', 'tn', 'ti', 'te', 'hi', 'he')}
for key in sorted(win):
    m, p = key
    bw = ours(win[key]); bc = best(win[key], lambda s: True)
    hx = ours(hin.get(key, []))
    t = hit.get(key, []); ht = ours(t)
    ti = best(t, lambda s: s.endswith('-implicit')); te = best(t, lambda s: s.endswith('-explicit'))
    h = hih.get(key, []); hh = ours(h)
    hi_ = best(h, lambda s: s.endswith('-implicit')); he = best(h, lambda s: s.endswith('-explicit'))
    f = lambda x: f'{x:.1f}' if x else '-'
    r = lambda n, d: (n / d) if n and d else None
    fr = lambda x: f'{x:.2f}x' if x else '-'
    vals = dict(hx=r(hx, bw), hc=r(bc, hx), tn=r(ht, bw), ti=r(ti, ht), te=r(te, ht), hi=r(hi_, hh), he=r(he, hh))
    for k, v in vals.items():
        cols[k].append(v)
    print(f'| {m} | {p} | {f(bw)} | {f(hx)} | {fr(vals["hx"])} | {f(bc)} | {fr(vals["hc"])} | {f(ht)} | {fr(vals["tn"])} | '
          f'{fr(vals["ti"])} | {fr(vals["te"])} | {f(hh)} | {fr(vals["hi"])} | {fr(vals["he"])} |')
print()
for k, name in (('hx', 'hi A x / best A x'), ('hc', 'cuSPARSE best A x / hi A x'), ('tn', 'hi A^T x / best A x'), ('ti', 'implicit / hi A^T x'),
                ('te', 'explicit / hi A^T x'), ('hi', 'implicit / hi A^H x'), ('he', 'explicit / hi A^H x')):
    v = [x for x in cols[k] if x]
    print(f'{name}: geomean {gm(v):.2f}x, min {min(v):.2f}x, max {max(v):.2f}x over {len(v)}')
