# Where a tune's time went: python3 scripts/tune_breakdown.py tune.json[.gz] (jitsparse tune -o DIR writes it).
import gzip
import json
import sys

path = sys.argv[1]
with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
    d = json.load(f)
s = d["seconds"]
print("wall", round(d["wall_seconds"], 1), {k: round(v, 1) for k, v in s.items() if not isinstance(v, (dict, list))}, d["compile"])
for k, v in s["compiling_by_stage"].items():
    print("%-45s %7.2f s %4d rounds" % (k, v["seconds"], v["rounds"]))
if "compiling_ahead" in s:
    print("compiled ahead (background thread): %.1f s, %d kernels" % (s["compiling_ahead"]["seconds"], s["compiling_ahead"]["kernels"]))
print("packing by matrix:", ", ".join("%s %.1f" % (k, v) for k, v in s["packing_by_matrix"].items()))
if "by_job" in s:  # since the twenty-eighth session: each search's wall time
    jobs = s["by_job"]
    keys = ["packing", "compiling", "measuring", "reference", "choosing", "saving"]
    total = {k: sum(j[k] for j in jobs) for k in keys + ["wall"]}
    rest = total["wall"] - sum(total[k] for k in keys)
    print("searches: %.1f s of the wall (%s, the rest %.1f); outside the searches %.1f s" %
          (total["wall"], ", ".join("%s %.1f" % (k, total[k]) for k in keys), rest, d["wall_seconds"] - total["wall"]))
    for j in jobs:
        other = j["wall"] - sum(j[k] for k in keys)
        print("  %-24s %s %6.2f s: %s, rest %.2f" % (j["matrix"], j["precision"], j["wall"],
                                                   " ".join("%s %.2f" % (k[:4], j[k]) for k in keys), other))
