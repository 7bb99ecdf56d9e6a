#!/usr/bin/env python3
"""Call C's database (every measured variant of a matrix above L2/16 also timed cold): for each record, the
cold best against the winner, and what choose_winners' rule (the cold numbers above the L2, else the
smaller worst-case regret max(warm/best warm, cold/best cold)) would pick from the N fastest warm, N = 6 ...
all. Usage: cold_pool.py db_n.json (unpacked from callC_every_variant_cold_tune_bench.tar.xz)."""
import json, math, sys

d = json.load(open(sys.argv[1]))
l2 = d['gpu']['l2_bytes']
recs = []
for r in d['matrices']:
    ms = [m for m in r['measurements'] if m.get('status') == 'ok' and m.get('cold_us', 0) > 0]
    if ms:
        recs.append((r, ms))
for r, ms in recs:
    byw = sorted(ms, key=lambda m: m['median_us'])
    rank = {m['variant']: i for i, m in enumerate(byw)}
    bc = min(ms, key=lambda m: m['cold_us'])
    win = [m for m in ms if m['variant'] == r['winner']]
    print(f"{r['name']:22s} {r['precision']} n={len(ms):3d} best cold {bc['cold_us']:7.2f} us (warm rank {rank[bc['variant']]:3d}, "
          f"warm {bc['median_us'] / byw[0]['median_us']:.2f}x the best warm), winner cold {win[0]['cold_us'] if win else 0:7.2f}")
gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
for n in [6, 12, 24, 48, 100000]:
    out = []
    for r, ms in recs:
        byw = sorted(ms, key=lambda m: m['median_us'])
        pool = byw[:n]
        bw, bc = min(m['median_us'] for m in pool), min(m['cold_us'] for m in pool)
        cold = r['compulsory_bytes'] > l2
        key = (lambda m: m['cold_us']) if cold else (lambda m: max(m['median_us'] / bw, m['cold_us'] / bc))
        p = min(pool, key=key)
        out.append((p['cold_us'] / min(m['cold_us'] for m in ms), p['median_us'] / byw[0]['median_us'], cold))
    print(f"pool {n:6d}: cold / best cold geomean {gm([o[0] for o in out]):.4f} max {max(o[0] for o in out):.3f}; "
          f"warm / best warm (fits the L2) geomean {gm([o[1] for o in out if not o[2]]):.4f} max {max(o[1] for o in out if not o[2]):.3f}")
