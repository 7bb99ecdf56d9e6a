# Per (matrix, precision, variant): time of run A over run B of one call, geomeans by entry type and matrix, and the best setup per matrix.
# Usage: python3 compare_setups.py EXTRACTED_CALL_DIR RUN_A RUN_B [v]   (e.g. b batch_n base_n)
import json,collections,math,sys
d=sys.argv[1]; a=sys.argv[2]; bb=sys.argv[3]; verbose=len(sys.argv)>4
def load(n):
    r0={}
    for l in open(d+'/'+n+'/bench.jsonl'):
        r=json.loads(l)
        if not r.get('is_jitsparse') or 'variant' not in r: continue
        r0[(r['matrix'],r['precision'],r['variant'])]=(r['median_us'] if r.get('status')=='ok' else None, r.get('status'))
    return r0
b=load(bb); n=load(a)
rat=collections.defaultdict(list); best={}
for k in sorted(b):
    m,p,v=k
    if 'hisparse' not in v: continue
    tb,sb=b[k]; tn,sn=n.get(k,(None,None))
    if sb!='ok' or sn!='ok': print('STATUS',k,sb,sn); continue
    e=v.split('.')[0]
    rat[e].append(tn/tb); rat[m].append(tn/tb)
    bm=best.setdefault((m,p),[1e9,1e9]); bm[0]=min(bm[0],tb); bm[1]=min(bm[1],tn)
    if verbose: print('%-20s %s %-45s %8.1f %8.1f  %.3f'%(m,p,v.split('/',1)[1],tb,tn,tn/tb))
for e,l in rat.items(): print('%-22s geomean new/base %.3f  min %.2f max %.2f  n=%d'%(e,math.exp(sum(map(math.log,l))/len(l)),min(l),max(l),len(l)))
allr=[x for k,l in rat.items() if k in ('real','complex','quaternion','block3') for x in l]; print('all %.3f n=%d'%(math.exp(sum(map(math.log,allr))/len(allr)),len(allr)))
print('best setup per matrix: base, batch, ratio')
for k,v in sorted(best.items()): print('  %-20s %s %8.1f %8.1f %.3f'%(k[0],k[1],v[0],v[1],v[1]/v[0]))
