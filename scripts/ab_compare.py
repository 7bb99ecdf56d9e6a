#!/usr/bin/env python3
"""Compare bench logs of the same given variants (scripts/ab_flags.sh, scripts/ab_hola.sh): per matrix and
variant, time in the first log over time in each other log (above 1: the other is faster), with the
geometric mean per matrix and overall. Usage: ab_compare.py BASE.log OTHER.log..."""
import collections, math, re, sys

ROW = re.compile(r'^(\S+)\s+(f32|f64)\s+jitsparse (\S+) \(given\)\s+ok\s+([\d.]+)')


def load(path):
    times = {}
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
