#!/usr/bin/env python3
"""Prints the median of every criterion benchmark last run (target/criterion/*/new/estimates.json)."""
import glob
import json
import os

for f in sorted(glob.glob("target/criterion/**/new/estimates.json", recursive=True)):
    e = json.load(open(f))
    name = os.path.relpath(os.path.dirname(os.path.dirname(f)), "target/criterion")
    med = e["median"]["point_estimate"]
    rate = f"{1e9 / med:,.0f}/s" if med > 0 else ""
    print(f"{name:36s} median {med:12.2f} ns  {rate:>16s}")
