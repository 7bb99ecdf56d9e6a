#!/usr/bin/env python3
"""One line per matrix of a tune.json: the winner, and the best variant of each transpose kind / hola."""
import json, sys
for path in sys.argv[1:]:
    doc = json.load(open(path))
    print(f"# {path}: op {doc.get('op')} wall {doc['wall_seconds']:.1f} s")
    for m in doc["matrices"]:
        best = {}
        for l in m["layouts"]:
            if l.get("median_us") is None:
                continue
            v = l["best_variant"]
            kind = "copy" if v.endswith("-copy") else "atomic" if v.endswith("-atomic") else "n"
            key = ("hola-" if l["layout"].startswith("hola") else "") + kind
            if key not in best or l["median_us"] < best[key][0]:
                best[key] = (l["median_us"], v)
        w = m["winner"]
        print(m["name"], m["precision"], f"winner {w['median_us']:.2f} us {w['variant']}",
              " | ".join(f"{k} {t:.2f} {v.split('/')[1]}/{v.split('/')[2]}" for k, (t, v) in sorted(best.items())))
