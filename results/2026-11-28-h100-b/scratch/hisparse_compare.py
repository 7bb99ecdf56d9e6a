# Start code against this code per (matrix, precision, variant), call A (extract callA_*.tgz into /tmp/a32
# first; for call C change the path). Usage: python3 hisparse_compare.py base_n new_n xonly_n
import json,sys,collections
def load(f):
    d={}
    for l in open(f):
        r=json.loads(l)
        if r.get('status')!='ok' or not r.get('is_jitsparse'): continue
        d[(r['matrix'],r['precision'],r['variant'])]=r['median_us']
    return d
runs={n:load('/tmp/a32/a/%s/bench.jsonl'%n) for n in sys.argv[1:]}
keys=sorted(set().union(*[set(k) for k in runs.values()]))
# winners from base
import re
win={}
for (m,p,v),t in runs[sys.argv[1]].items():
    if 'hisparse' not in v: win[(m,p)]=t
print('%-22s %-4s %-38s'%('matrix','prec','layout')+''.join('%10s'%n for n in sys.argv[1:])+'   ratios to winner')
for k in keys:
    m,p,v=k
    if 'hisparse' not in v: continue
    lay=v.split('/')[1]+('@rcm' if '@rcm' in v else '')
    ts=[runs[n].get(k) for n in sys.argv[1:]]
    w=win.get((m,p))
    print('%-22s %-4s %-38s'%(m,p,lay)+''.join('%10s'%('%.1f'%t if t else '-') for t in ts)+'   '+' '.join('%.2f'%(t/w) if t and w else '-' for t in ts))
