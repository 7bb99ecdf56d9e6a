import json,sys,math
def load(f):
    d=json.load(open(f)); out={}
    for m in d['matrices']:
        out[(m['name'],m['precision'],m['op'])]=m
    return out
a=load(sys.argv[1]); b=load(sys.argv[2])
def times(m):
    t={}
    for x in m['measurements']:
        if x['status']=='ok' and x.get('median_us'): t[x['variant']]=min(t.get(x['variant'],1e9),x['median_us'])
    return t
res=[]
for k in a:
    if k not in b: continue
    ta,tb=times(a[k]),times(b[k])
    if not ta or not tb: continue
    # winner by record in a, scored in b
    wa=a[k]['winner']; wb=b[k]['winner']
    besta=min(ta.values()); bestb=min(tb.values())
    r1 = tb.get(wa,None); r1 = r1/bestb if r1 else None
    r2 = ta.get(wb,None); r2 = r2/besta if r2 else None
    # common variants: correlation
    com=[v for v in ta if v in tb]
    ratios=sorted(tb[v]/ta[v] for v in com)
    med=ratios[len(ratios)//2] if ratios else None
    # spread of pairwise ratio after normalising median
    dev=sorted(abs(math.log(r/med)) for r in ratios) if ratios else []
    p90=math.exp(dev[int(0.9*len(dev))]) if dev else None
    res.append((k,besta,r1,r2,len(com),med,p90,wa==wb, a[k]['timing']))
for r in sorted(res,key=lambda r:r[1]):
    print('%-28s %s %7.2f  A-winner-in-B %6s  B-winner-in-A %6s  common %3d  medratio %.3f  p90dev %.3f same %s %s'%(r[0][0],r[0][1],r[1],'%.3f'%r[2] if r[2] else '-', '%.3f'%r[3] if r[3] else '-', r[4], r[5] or 0, r[6] or 0, r[7], r[8]))
sc=[x for r in res for x in (r[2],r[3]) if x]
print(len(sc),'within10 %.0f%%'%(100*sum(x<=1.10 for x in sc)/len(sc)),'within3 %.0f%%'%(100*sum(x<=1.03 for x in sc)/len(sc)))
