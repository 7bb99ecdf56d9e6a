#!/usr/bin/env python3
"""One line per profiled kernel from the CSVs of scripts/profile_variants.sh (ncu --csv --page details).

Usage: scripts/ncu_summary.py CSV... [--stalls]
Prints: file, kernel (short), duration, DRAM / L2 / L1 / SM throughput (% of peak), L2 hit rate, achieved and
theoretical occupancy, registers, the block limits that bind, and (--stalls) ncu's warp-stall rule text.
For a kernel launched several times (the bench's verification and timing), the slowest launch is kept.
"""
import csv
import io
import re
import sys


def rows_header(text):
    return next(csv.reader(io.StringIO(text)))


def kernels(path):
    text = open(path, errors="replace").read()
    start = text.find('"ID","Process ID"')  # the program's own output comes first
    if start < 0:
        return {}
    width = len(rows_header(text[start:]))
    # metric rows end after the value, rule rows carry the rule columns too
    rows = [r + [""] * (width - len(r)) for r in csv.reader(io.StringIO(text[start:])) if len(r) >= 15]
    h = rows[0]
    col = {name: h.index(name) for name in h}
    by_id = {}
    for r in rows[1:]:
        k = by_id.setdefault(r[col["ID"]], {"name": r[col["Kernel Name"]], "grid": r[col["Grid Size"]],
                                             "block": r[col["Block Size"]], "rules": []})
        if r[col["Metric Name"]]:
            k[r[col["Metric Name"]]] = (r[col["Metric Value"]], r[col["Metric Unit"]])
        if r[col["Rule Description"]]:
            k["rules"].append((r[col["Section Name"]], r[col["Rule Description"]]))
    slowest = {}
    for k in by_id.values():
        short = re.sub(r"^void ", "", k["name"]).split("<")[0]
        if short not in slowest or num(k, "Duration") > num(slowest[short], "Duration"):
            slowest[short] = k
    return slowest


def num(k, metric):
    v = k.get(metric, ("0", ""))[0].replace(",", "")
    try:
        x = float(v)
    except ValueError:
        return 0.0
    unit = k.get(metric, ("", ""))[1]
    return x / 1000.0 if unit == "ns" else x * 1000.0 if unit == "ms" else x  # durations in us


def main():
    stalls = "--stalls" in sys.argv
    files = [a for a in sys.argv[1:] if a != "--stalls"]
    print(f"{'profile':28s} {'kernel':15s} {'us':>8s} {'dram%':>6s} {'L2%':>6s} {'L1%':>6s} {'SM%':>6s} "
          f"{'L2hit':>6s} {'occ':>5s} {'theo':>5s} {'regs':>4s}  limits")
    for path in files:
        name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        for short, k in kernels(path).items():
            lim = {m.replace("Block Limit ", ""): int(num(k, m)) for m in k if m.startswith("Block Limit ")}
            least = min(lim.values()) if lim else 0
            binding = ",".join(m for m, v in lim.items() if v == least)
            print(f"{name:28s} {short:15s} {num(k, 'Duration'):8.2f} {num(k, 'DRAM Throughput'):6.1f} "
                  f"{num(k, 'L2 Cache Throughput'):6.1f} {num(k, 'L1/TEX Cache Throughput'):6.1f} "
                  f"{num(k, 'Compute (SM) Throughput'):6.1f} {num(k, 'L2 Hit Rate'):6.1f} "
                  f"{num(k, 'Achieved Occupancy'):5.1f} {num(k, 'Theoretical Occupancy'):5.1f} "
                  f"{int(num(k, 'Registers Per Thread')):4d}  {binding}={least} grid {k['grid']}")
            if stalls:
                for section, text in k["rules"]:
                    if "stall" in text.lower() or "latency" in text.lower():
                        print("    " + re.sub(r"\s+", " ", text)[:400])


if __name__ == "__main__":
    main()
