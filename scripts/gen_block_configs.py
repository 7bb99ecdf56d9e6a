#!/usr/bin/env python3
"""Writes configs/entries/blockB.json for B = 2..8 (dense B x B real blocks, row-major).

The files are committed; run this only to change their form. Kept as a script because the mac
snippets of large blocks are long and mechanical.
"""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
for b in range(2, 9):
    comps = [f"a{r}{c}" for r in range(b) for c in range(b)]
    vec = [f"x{i}" for i in range(b)]
    multiply = [["0"] * b for _ in range(b)]
    for r in range(b):
        for c in range(b):
            multiply[r][c] = f"a{r}{c}"
    mac = " ".join(
        f"acc.x{r} += " + " + ".join(f"a.a{r}{c} * x.x{c}" for c in range(b)) + ";" for r in range(b))
    entry = {
        "name": f"block{b}",
        "description": f"A dense {b}x{b} real block (row-major) times a {b}-vector.",
        "components": comps,
        "vector_components": vec,
        "multiply": multiply,
        "mac": mac,
        "precisions": ["f32", "f64"],
    }
    with open(os.path.join(here, "..", "configs", "entries", f"block{b}.json"), "w") as f:
        json.dump(entry, f, indent=1)
        f.write("\n")
