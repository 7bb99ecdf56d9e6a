import json,sys; d=json.load(open(sys.argv[1])); s=d['seconds']; print('wall', round(d['wall_seconds'],1), {k:round(v,1) for k,v in s.items() if not isinstance(v,dict)}, d['compile'])
for k,v in s['compiling_by_stage'].items(): print('%-45s %7.2f s %4d rounds'%(k,v['seconds'],v['rounds']))
print('packing by matrix:', ', '.join('%s %.1f'%(k,v) for k,v in s['packing_by_matrix'].items()))
