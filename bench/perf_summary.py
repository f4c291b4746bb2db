#!/usr/bin/env python3
"""Summarize a `perf record -e cpu-clock -g` profile for bench/run (used where callgrind
cannot run: valgrind 3.19 crashes when overland-sync starts its threads). Samples count
time on a CPU only: time spent waiting (fsync, the network) is not in them.

    python3 bench/perf_summary.py perf.data --bucket 'label=substring' ...
"""
import argparse
import json
import re
import subprocess

# bench/profile.py (the script's directory comes first on sys.path, before the standard
# library's module of the same name): one demangler and one shortener for both profilers.
from profile import demangle, short

ROW = re.compile(r"^\s+([\d.]+)%\s+([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*?)\s*$")
SELF_ROW = re.compile(r"^\s+([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*?)\s*$")


def report(path, *extra):
    return subprocess.run(["perf", "report", "-i", path, "--stdio", "-g", "none", *extra],
                          capture_output=True, text=True, check=True).stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--bucket", action="append", default=[])
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--json", help="also write the object shares and buckets to this file")
    args = parser.parse_args()

    dso_report = report(args.file, "--no-children", "--sort", "dso")
    samples = re.search(r"# Samples: (\S+)", dso_report)
    dsos = []
    for line in dso_report.splitlines():
        m = re.match(r"^\s+([\d.]+)%\s+(\S+)\s*$", line)
        if m:
            dsos.append((float(m.group(1)), m.group(2).rsplit("/", 1)[-1]))
    selfs = {}
    for line in report(args.file, "--no-children", "--sort", "dso,symbol").splitlines():
        m = SELF_ROW.match(line)
        if not m:
            continue
        share, dso, sym = float(m.group(1)), m.group(2).rsplit("/", 1)[-1], re.sub(r"(\s+-)+$", "", m.group(3))
        if sym.startswith("0x"):
            sym = f"(no symbols in {dso})"
        key = (dso, sym)
        selfs[key] = selfs.get(key, 0.0) + share
    children = []
    for line in report(args.file, "--children", "--sort", "symbol").splitlines():
        m = re.match(r"^\s+([\d.]+)%\s+([\d.]+)%\s+\[[.k]\]\s+(.*?)\s*$", line)
        if m:
            children.append((float(m.group(1)), re.sub(r"(\s+-)+$", "", m.group(3))))
    top_self = sorted(selfs.items(), key=lambda kv: -kv[1])[: args.top]
    names = demangle([k[1] for k, _ in top_self] + [c[1] for c in children])
    self_names, child_names = names[: len(top_self)], names[len(top_self):]
    children = [(c[0], d) for c, d in zip(children, child_names)]

    buckets = {}
    for spec in args.bucket:
        label, pattern = spec.split("=", 1)
        buckets[label] = next((s for s, d in children if pattern in d), None)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"objects": {d: s for s, d in dsos}, "buckets": buckets}, f)
    if samples:
        print(f"- {samples.group(1)} samples of cpu-clock")
    print("- by object: " + ", ".join(f"{d} {s:.1f} %" for s, d in dsos[:7]))
    if args.bucket:
        print()
        print("| where (inclusive, share of on-CPU samples) | share |")
        print("|---|---:|")
        for label, hit in buckets.items():
            print(f"| {label} | {'n/a' if hit is None else f'{hit:.1f} %'} |")
    print()
    print("Top functions by self time:")
    print()
    print("| self | function | object |")
    print("|---:|---|---|")
    for ((dso, _), share), name in zip(top_self, self_names):
        print(f"| {share:.1f} % | `{short(name)}` | {dso} |")


if __name__ == "__main__":
    main()
