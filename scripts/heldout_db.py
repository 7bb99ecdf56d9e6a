#!/usr/bin/env python3
"""A copy of a tuning database without some matrices' records (every precision and operation), so that
`tune --quick` of those matrices predicts from the rest: a real quick tune of held-out matrices, whose
full records in the original database `scripts/quick_vs_full.py` compares it with.

Usage: scripts/heldout_db.py IN_DB OUT_DB NAME...   (IN_DB gunzipped or .gz; OUT_DB plain JSON)
"""
import gzip
import json
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip())
    src, dst, names = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt") as f:
        db = json.load(f)
    before = len(db["matrices"])
    missing = names - {r["name"] for r in db["matrices"]}
    if missing:
        sys.exit("not in %s: %s" % (src, ", ".join(sorted(missing))))
    db["matrices"] = [r for r in db["matrices"] if r["name"] not in names]
    with open(dst, "w") as f:
        json.dump(db, f)
    print("%s: %d of %d records kept (%s left out)" % (dst, len(db["matrices"]), before, ", ".join(sorted(names))))


if __name__ == "__main__":
    main()
