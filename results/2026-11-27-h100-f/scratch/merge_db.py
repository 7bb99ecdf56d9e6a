#!/usr/bin/env python3
# merge_db.py OLD.json.gz NEW.json OUT.json: the records and domains of OLD outside the main job's set
# (train-*, data domains), with every builtin-* record and domain of NEW; NEW's header.
import gzip, json, sys
old = json.load(gzip.open(sys.argv[1], 'rt'))
new = json.load(open(sys.argv[2]))
main = lambda d: d.startswith('builtin-')
out = dict(new)
out['matrices'] = [r for r in old['matrices'] if not main(r['domain'])] + [r for r in new['matrices'] if main(r['domain'])]
out['domains'] = [d for d in old['domains'] if not main(d['domain'])] + [d for d in new['domains'] if main(d['domain'])]
print('old header same as new:', all(old.get(k) == new.get(k) for k in ('kernel_templates', 'generator_version', 'nvrtc_version')),
      '| records', len(out['matrices']), '(main', sum(main(r['domain']) for r in out['matrices']), ')')
json.dump(out, open(sys.argv[3], 'w'))
