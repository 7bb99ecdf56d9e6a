import json,gzip,sys,math
def load(p):
    d=json.load(gzip.open(p,'rt') if p.endswith('.gz') else open(p))
    out={}
    for r in d['matrices']:
        best=None
        for m in r['measurements']:
            if m.get('variant')==r.get('winner'): best=m
        if best: out[(r['name'],r['precision'],r.get('op','n'))]=(best.get('cold_us') or best['median_us'], best['median_us'], r['winner'])
    return out
a=load(sys.argv[1]); b=load(sys.argv[2])
rs=[]
for k in a:
    if k in b:
        rs.append(b[k][1]/a[k][1])
        if abs(math.log(rs[-1]))>0.03: print(f"{k[0]:22s} {k[1]} {a[k][1]:8.2f} -> {b[k][1]:8.2f}  {a[k][2].split('/',1)[1]} -> {b[k][2].split('/',1)[1]}")
print('records',len(rs),'geomean new/old (warm/graph winner times) %.4f'%math.exp(sum(map(math.log,rs))/len(rs)))
