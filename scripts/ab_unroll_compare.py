#!/usr/bin/env python3
"""Tabulate bench logs of the same setups at several unroll values (-uN in the schedule; none means 2):
per matrix and setup, the time of a base log (a binary without -uN, whose names mean one chunk) and of each
unroll value of the new log, and the new log's best against the base. Usage: ab_unroll_compare.py BASE/bench.jsonl NEW/bench.jsonl"""
import collections, json, math, re, sys

UNROLL = re.compile(r'-u(\d+)')


def load(path):  # bench.jsonl of `jitsparse bench --variant ...` (the log truncates names)
    times = {}
    for line in open(path):
        r = json.loads(line)
        m = re.match(r'jitsparse (\S+) \(given\)', r.get('method', ''))
        if m and r.get('status') == 'ok':
            times[(r['matrix'], m.group(1))] = r['median_us']
    return times


def split(variant):
    m = UNROLL.search(variant.split('/')[2])
    return UNROLL.sub('', variant, count=1) if m else variant, int(m.group(1)) if m else 2


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base, new = load(sys.argv[1]), load(sys.argv[2])
    table = collections.defaultdict(dict)
    for (matrix, variant), us in new.items():
        setup, u = split(variant)
        table[(matrix, setup)][u] = us
    unrolls = sorted({u for row in table.values() for u in row})
    print('%-22s %-58s %9s ' % ('matrix', 'setup', 'base') + ' '.join('%9s' % ('u%d' % u) for u in unrolls) + '  best/base')
    gains = collections.defaultdict(list)
    for (matrix, setup), row in sorted(table.items()):
        b = base.get((matrix, setup))
        cells = ' '.join('%9.2f' % row[u] if u in row else '%9s' % '-' for u in unrolls)
        best = min(row.values())
        print('%-22s %-58s %9s %s  %s' % (matrix, setup, '%.2f' % b if b else '-', cells, '%.3fx' % (b / best) if b else '-'))
        if b:
            for u, us in row.items():
                gains[u].append(b / us)
    for u in sorted(gains):
        g = gains[u]
        print('u%d over base: geomean %.3fx, min %.3fx, max %.3fx (n=%d)' %
              (u, math.exp(sum(map(math.log, g)) / len(g)), min(g), max(g), len(g)))


if __name__ == '__main__':
    main()
