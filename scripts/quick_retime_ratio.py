# For the quick-tuning records of a tuning database: the fastest re-timed finalist (9 samples) over the
# fastest search timing (3 samples) of the same record. Usage: scripts/quick_retime_ratio.py DATABASE.json
import json, sys, statistics
d = json.load(open(sys.argv[1]))
ratios = []
for r in d['matrices']:
    if r.get('search') != 'quick':
        continue
    ms = [m for m in r['measurements'] if m.get('status', 'ok') == 'ok' and m.get('median_us')]
    fin = [m for m in ms if len(m.get('samples_us', [])) == 9]
    search = [m for m in ms if len(m.get('samples_us', [])) != 9]
    if not fin or not search:
        continue
    best_fin = min(m['median_us'] for m in fin)
    best_search = min(m['median_us'] for m in search)
    ratios.append((best_fin / best_search, r['name'], r['precision'], best_fin, best_search))
ratios.sort()
for x in ratios:
    print('%.3f %-14s %s retimed %.2f us, search %.2f us' % x)
v = [x[0] for x in ratios]
if not v:
    sys.exit('no quick-tuning record with re-timed finalists in ' + sys.argv[1])
print('records %d, median ratio %.3f, above 1.2: %d, above 1.5: %d, max %.2f' % (len(v), statistics.median(v), sum(1 for x in v if x > 1.2), sum(1 for x in v if x > 1.5), max(v)))
