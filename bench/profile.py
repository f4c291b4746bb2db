#!/usr/bin/env python3
"""Summarize a callgrind profile for bench/run: total instructions, instructions per unit,
the top functions by inclusive and by self cost (Swift names demangled), and named
buckets (inclusive cost of the first function whose demangled name contains a pattern).

    python3 bench/profile.py callgrind.out --units 100000 --unit sentence \
        --bucket 'NMEA decoding=FixSource.push(' --bucket 'seal=JournalAppender.seal(' > summary.md
"""
import argparse
import json
import re
import subprocess

LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*([\d.]+)%\)\s+(.*?)\s*(?:\[(.*)\])?$")


def annotate(path: str, inclusive: bool) -> tuple[int, list[tuple[int, str, str]]]:
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes" if inclusive else "--inclusive=no", "--threshold=100", path],
        check=True, capture_output=True, text=True).stdout
    total = 0
    rows = []
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        count = int(m.group(1).replace(",", ""))
        name = m.group(3)
        if name.startswith("PROGRAM TOTALS"):
            total = count
            continue
        if ":" in name:
            name = name.split(":", 1)[1]  # drop "file:" (always ??? or a libc path)
        obj = (m.group(4) or "").rsplit("/", 1)[-1]
        rows.append((count, name, obj))
    return total, rows


def demangle(names: list[str]) -> list[str]:
    try:
        out = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                             capture_output=True, text=True, check=True).stdout.splitlines()
        if len(out) == len(names):
            return out
    except (OSError, subprocess.CalledProcessError):
        pass
    return names


def short(name: str, width: int = 110) -> str:
    name = re.sub(r"\s+", " ", name)
    return name if len(name) <= width else name[: width - 1] + "…"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--units", type=float, required=True)
    parser.add_argument("--unit", default="point")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--bucket", action="append", default=[], help="label=substring of the demangled name")
    parser.add_argument("--below", help="list inclusive costs below the first function whose name contains this")
    parser.add_argument("--json", help="also write total, units and buckets to this file")
    parser.add_argument("--skip-above", type=float, default=97.0,
                        help="leave out inclusive rows above this share (main, start-up frames)")
    args = parser.parse_args()

    total, inclusive = annotate(args.file, True)
    _, exclusive = annotate(args.file, False)
    inc_names = demangle([n for _, n, _ in inclusive])
    exc_names = demangle([n for _, n, _ in exclusive])
    inclusive = [(c, d, o) for (c, _, o), d in zip(inclusive, inc_names)]
    exclusive = [(c, d, o) for (c, _, o), d in zip(exclusive, exc_names)]

    buckets = {}
    for spec in args.bucket:
        label, pattern = spec.split("=", 1)
        buckets[label] = next((c for c, d, _ in inclusive if pattern in d), None)
    libz = sum(c for c, _, o in exclusive if o.startswith("libz"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"total": total, "units": args.units, "buckets": buckets, "libz_self": libz}, f)
    print(f"- instructions: {total:,} in all, {total / args.units:,.0f} per {args.unit} ({args.units:,.0f} {args.unit}s)")
    if libz:
        print(f"- in zlib itself (self cost of libz.so): {100 * libz / total:.1f} %, {libz / args.units:,.0f} per {args.unit}")
    if args.bucket:
        print()
        print("| where (inclusive) | share | instructions per " + args.unit + " |")
        print("|---|---:|---:|")
        for label, hit in buckets.items():
            if hit is None:
                print(f"| {label} | n/a | n/a |")
            else:
                print(f"| {label} | {100 * hit / total:.1f} % | {hit / args.units:,.0f} |")
    print()
    print("Top functions by self cost:")
    print()
    print("| self | share | function | object |")
    print("|---:|---:|---|---|")
    for c, d, o in exclusive[: args.top]:
        print(f"| {c:,} | {100 * c / total:.1f} % | `{short(d)}` | {o} |")
    print()
    print("Top functions by inclusive cost (below the entry points):")
    print()
    print("| inclusive | share | function |")
    print("|---:|---:|---|")
    shown = 0
    ceiling = 100 * args.skip_above / 100
    if args.below:
        hit = next((c for c, d, _ in inclusive if args.below in d), None)
        if hit is not None:
            ceiling = 100 * hit / total
    entry = re.compile(r"\(below main\)|__libc_start|^_start$|^main$|_main$|^0x")
    for c, d, o in inclusive:
        if 100 * c / total >= ceiling or entry.search(d):
            continue
        print(f"| {c:,} | {100 * c / total:.1f} % | `{short(d)}` |")
        shown += 1
        if shown >= args.top:
            break


if __name__ == "__main__":
    main()
