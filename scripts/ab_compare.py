#!/usr/bin/env python3
"""Compare bench logs of the same given variants (scripts/ab_flags.sh, scripts/ab_hola.sh, scripts/ab_env.sh):
per matrix and variant, time in the first log over time in each other log (above 1: the other is faster),
with the geometric mean per matrix and overall. A bench.jsonl (or several joined by commas) reads the
full variant names, which the printed table cuts. Usage: ab_compare.py BASE OTHER...   (a .log, or .jsonl[,...])"""
import collections, json, math, re, sys

ROW = re.compile(r'^(\S+)\s+(f32|f64)\s+jitsparse (\S+) \(given\)\s+ok\s+([\d.]+)')


def load(path):
    times = {}
    if path.endswith('.jsonl') or ',' in path:
        for part in path.split(','):
            for line in open(part):
                r = json.loads(line)
                if r.get('is_jitsparse') and r.get('status') == 'ok':
                    times[(r['matrix'], r['variant'])] = r['median_us']
        return times
    for line in open(path):
        m = ROW.match(line)
        if m:
            times[(m.group(1), m.group(3))] = float(m.group(4))
    return times


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    base = load(sys.argv[1])
    for path in sys.argv[2:]:
        other = load(path)
        pairs = [(k, base[k] / other[k]) for k in base if k in other]
        if not pairs:
            print(path, 'no variant in common with', sys.argv[1])
            continue
        ratios = [r for _, r in pairs]
        print('%s: speedup over %s, geomean %.3f (n=%d), min %.3f, max %.3f' %
              (path, sys.argv[1], geomean(ratios), len(ratios), min(ratios), max(ratios)))
        by_matrix = collections.defaultdict(list)
        for (matrix, _), r in pairs:
            by_matrix[matrix].append(r)
        for matrix, rs in by_matrix.items():
            print('   %-24s %.3f (n=%d)' % (matrix, geomean(rs), len(rs)))
        for (matrix, variant), r in sorted(pairs):
            print('      %-24s %-60s %7.2f -> %7.2f us  %.3f' % (matrix, variant, base[(matrix, variant)],
                                                              other[(matrix, variant)], r))


if __name__ == '__main__':
    main()
