# The note's HiSparse table from call C (extract callC_*.tgz into /tmp/c32 first). Per matrix and precision:
# our fastest given A x variant, cuSPARSE's best A x, the best hisparse A x (plain; renumbered), hisparse
# A^T x of the start code -> this code (renumbered), cuSPARSE's implicit and explicit A^T x; all warm, one run.
import json, collections
def rows(f): return [json.loads(l) for l in open(f)]
n = rows('/tmp/c32/c/final_n/bench.jsonl'); tn = rows('/tmp/c32/c/new_t/bench.jsonl'); tb = rows('/tmp/c32/c/base_t/bench.jsonl')
A = collections.defaultdict(dict)
def put(d, slot, t, name):
    if t < d.get(slot, (1e9, ''))[0]: d[slot] = (t, name)
for r in n:
    if r.get('status') != 'ok': continue
    d = A[(r['matrix'], r['precision'])]
    if r['is_jitsparse']:
        v = r['variant']
        put(d, ('hsrcm' if '@rcm' in v else 'hs') if 'hisparse' in v else 'win', r['median_us'], v)
    else: put(d, 'cus', r['median_us'], r['method'])
for tag, rs in (('tn', tn), ('tb', tb)):
    for r in rs:
        if r.get('status') != 'ok': continue
        d = A[(r['matrix'], r['precision'])]
        if r['is_jitsparse']: put(d, tag + ('rcm' if '@rcm' in r['variant'] else ''), r['median_us'], r['variant'])
        elif tag == 'tn': put(d, 'cimp' if r['method'].endswith('-implicit') else 'cexp', r['median_us'], r['method'])
f = lambda d, s: '%.1f' % d[s][0] if s in d else '-'
lay = lambda d, s: d[s][1].split('/')[1].split('-')[0].replace('hisparse', '') if s in d else ''
ratio = lambda d, s, w: ' (%.2fx)' % (d[s][0] / d[w][0]) if s in d and w in d else ''
print('| matrix | | ours A x | cuSPARSE A x | hisparse A x (d, X) | hisparse@rcm A x | hisparse A^T x start -> now | @rcm | cuSPARSE A^T x implicit / explicit |')
print('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for k in sorted(A):
    d = A[k]
    print('| %s | %s | %s | %s | %s %s%s | %s%s | %s -> %s%s | %s | %s / %s |' % (
        k[0], k[1], f(d, 'win'), f(d, 'cus'), f(d, 'hs'), lay(d, 'hs'), ratio(d, 'hs', 'win'), f(d, 'hsrcm'),
        ratio(d, 'hsrcm', 'win'), f(d, 'tb'), f(d, 'tn'), ratio(d, 'tn', 'win'), f(d, 'tnrcm'), f(d, 'cimp'), f(d, 'cexp')))
