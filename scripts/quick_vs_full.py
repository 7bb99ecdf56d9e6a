#!/usr/bin/env python3
"""Quick tuning against the full search, on the same matrices: two tuning databases (gunzipped or .gz),
one from `tune --quick`, one from a full `tune`, both started from the same database.

For each (matrix, precision) that is a quick record in the first and a full record in the second:
- GPU seconds: the sum of the record's measurement seconds (timing, verification and re-timing alike; of
  the full record only the search's own, not what `jitsparse evaluate` added to it);
- found: quick's fastest time over the full search's fastest time (warm medians, finalists as re-timed);
- chosen: quick's winner over the full record's winner (warm medians).
Usage: scripts/quick_vs_full.py QUICK_DB FULL_DB [--json OUT.json]
"""
import gzip
import json
import math
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def records(db, search):
    return {(r["name"], r["precision"], r.get("op", "n")): r for r in db["matrices"] if r.get("search") == search}


def ok(r, search_only=False):
    return [m for m in r["measurements"] if m.get("status") == "ok" and m.get("median_us", 0) > 0
            and not (search_only and "origin" in m)]


def fastest(r, search_only=False):
    t = [m["median_us"] for m in ok(r, search_only)]
    return min(t) if t else None


def winner_time(r):
    w = {m["variant"]: m["median_us"] for m in ok(r)}
    return w.get(r.get("winner"))


def search_seconds(r):
    return sum(m.get("seconds", 0) for m in r["measurements"] if "origin" not in m)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--json")]
    out = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    if "--json" in sys.argv:
        args.remove(out)
    quick, full = records(load(args[0]), "quick"), records(load(args[1]), "full")
    rows = []
    for key in sorted(quick):
        if key not in full:
            continue
        q, f = quick[key], full[key]
        fq, ff, wq, wf = fastest(q), fastest(f, True), winner_time(q), winner_time(f)
        rows.append({"matrix": key[0], "precision": key[1], "op": key[2],
                     "quick_variants": len(q["measurements"]),
                     "full_variants": sum("origin" not in m for m in f["measurements"]),
                     "quick_seconds": search_seconds(q), "full_seconds": search_seconds(f),
                     "found": fq / ff if fq and ff else None, "chosen": wq / wf if wq and wf else None,
                     "quick_winner": q.get("winner"), "full_winner": f.get("winner")})
    if not rows:
        sys.exit("no (matrix, precision) is a quick record in the first database and a full one in the second")
    for r in rows:
        print("%-24s %s %4d/%-4d variants %7.3f/%-7.3f s  found %s  chosen %s" % (
            r["matrix"], r["precision"], r["quick_variants"], r["full_variants"], r["quick_seconds"],
            r["full_seconds"], "%.3f" % r["found"] if r["found"] else "-", "%.3f" % r["chosen"] if r["chosen"] else "-"))
    qs, fs = sum(r["quick_seconds"] for r in rows), sum(r["full_seconds"] for r in rows)
    print("records %d; GPU seconds quick %.2f, full %.2f: %.1f%%" % (len(rows), qs, fs, 100 * qs / fs))
    for what in ("found", "chosen"):
        v = [r[what] for r in rows if r[what]]
        print("%-6s within 10%%: %d of %d (%.0f%%), within 3%%: %d (%.0f%%), geomean %.3f, worst %.2f" % (
            what, sum(x <= 1.10 for x in v), len(v), 100 * sum(x <= 1.10 for x in v) / len(v),
            sum(x <= 1.03 for x in v), 100 * sum(x <= 1.03 for x in v) / len(v),
            math.exp(sum(map(math.log, v)) / len(v)), max(v)))
    if out:
        json.dump(rows, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
