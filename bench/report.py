#!/usr/bin/env python3
"""Write the Markdown report of a bench/run run from its raw directory (results.tsv, the
journals' stats, hyperfine's JSON, the profile summaries). Called by bench/run:

    python3 bench/report.py bench/out/run-full > docs/performance.md
"""
import json
import os
import sys

RAW = sys.argv[1]
R: dict[str, str] = {}
with open(os.path.join(RAW, "results.tsv")) as f:
    for line in f:
        key, _, value = line.rstrip("\n").partition("\t")
        R[key] = value


def num(key, default=None):
    try:
        return float(R[key])
    except (KeyError, ValueError):
        return default


def load(name):
    try:
        with open(os.path.join(RAW, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read(name):
    try:
        with open(os.path.join(RAW, name)) as f:
            return f.read().strip()
    except OSError:
        return None


def n(x, digits=0):
    if x is None:
        return "n/a"
    return f"{x:,.{digits}f}"


def rate(x):
    """A rate, in a readable unit."""
    if x is None:
        return "n/a"
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.0f} k"
    return f"{x:.0f} "


def ratio(x):
    return "n/a" if x is None else (f"{x:.2f}×" if x < 10 else f"{x:.1f}×")


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


def cmd(key):
    c = R.get("cmd." + key)
    return f"`{c}`" if c else ""


def hyper(name):
    data = load(name)
    if not data:
        return None
    r = data["results"][0]
    return {"median": r["median"], "mean": r["mean"], "sd": r.get("stddev") or 0, "min": r["min"], "max": r["max"],
            "runs": len(r.get("times", []))}


QUICK = R.get("mode") == "quick"
REPS = int(num("reps", 1))
out = []
p = out.append

# ---------------------------------------------------------------------------------------
INPUTS = {
    "gen": f"generated: {n(num('epochs'))} epochs at 1 Hz (bench/gen_nmea.py --seed 1)",
    "x20": f"real drive ×{R.get('x20.copies')}, each copy a day later (bench/shift_drive.py)",
    "drive": "real drive, as is (../shared/samples/drive/drive.nmea)",
    "gpsd": f"the {R.get('gpsd.files')} gpsd captures (../shared/samples/gpsd/*.log)",
}


def ingest_figures(name):
    s = num(f"{name}.ours.s")
    sentences = num(f"{name}.sentences")
    points = num(f"{name}.points")
    records = num(f"{name}.records")
    f = {"s": s, "sentences": sentences, "points": points, "records": records,
         "sps": sentences / s if s else None, "pps": points / s if s else None}
    for peer in ("gpsdecode", "gpsbabel_geojson", "gpsbabel_gpx"):
        ps = num(f"{name}.{peer}.s")
        f[peer] = ps
        f[peer + ".ratio"] = ps / s if ps and s else None
    g = num(f"{name}.gzip6.s")
    z = num(f"{name}.zcat.s")
    f["gzip6_pps"] = records / g if g and records else None
    f["zcat_pps"] = records / z if z and records else None
    f["gzip6.ratio"] = g / s if g and s else None
    return f


F = {name: ingest_figures(name) for name in INPUTS if num(f"{name}.ours.s")}

# Journals
sealed = {name: load(f"journal-{name}-sealed.json") for name in ("gen", "x20", "drive")}
bulk = {name: load(f"journal-{name}-bulk.json") for name in ("gen", "x20", "drive")}
live = load("journal-live.json")
small = load("journal-small.json")


def bpp(stats, kind):
    if not stats:
        return None
    recs, size = stats.get(f"{kind}_records", 0), stats.get(f"{kind}_bytes", 0)
    return size / recs if recs else None


drive_sealed_bpp = bpp(sealed["drive"], "sealed")
live_bpp = bpp(live, "active")

status = hyper("status.json")
jstats = hyper("stats.json")
noop_now = hyper("noop-now.json")
noop_due = hyper("noop-due.json")
have_sync = R.get("have_sync") == "1"
drain_s = num("drain_gen.s")
drain_points = num("drain_gen.points")
drain_pps = drain_points / drain_s if drain_s and drain_points else None
zcat_j = num("zcat_journal.s")
zcat_j_pps = drain_points / zcat_j if zcat_j and drain_points else None
ceiling_pps = (num("ceiling.requests") * 1000 / num("ceiling.s")) if num("ceiling.s") else None
sync_rss_big = num("drain_gen.rss_kb")
sync_rss_small = num("drain_small.rss_kb")
backlog = sealed["gen"]["unsent"] if sealed["gen"] else None

# ---------------------------------------------------------------------------------------
# Targets
targets = []  # (name, measured, target, met, margin text)


def target(name, measured, goal, met, margin):
    targets.append((name, measured, goal, met, margin))


g = F.get("gen", {})
if g.get("gpsdecode.ratio"):
    r = g["gpsdecode.ratio"]
    target("ingest: sentences/s vs gpsdecode (generated input)",
           f"{ratio(r)} ({rate(g['sps'])}sentences/s vs {rate(g['sentences'] / g['gpsdecode'])}sentences/s)",
           "≥ 5×", r >= 5,
           f"{r / 5:.2f} of the target; needs {5 / r:.2f}× faster" if r < 5 else f"{r / 5:.2f}× the target")
x = F.get("x20", {})
if x.get("gpsdecode.ratio"):
    r = x["gpsdecode.ratio"]
    target("ingest: the same on the real drive ×%s" % R.get("x20.copies"), f"{ratio(r)}", "≥ 5×", r >= 5,
           f"needs {5 / r:.2f}× faster" if r < 5 else f"{r / 5:.2f}× the target")
if drive_sealed_bpp:
    target("size: sealed journal, real drive", f"{drive_sealed_bpp:.1f} B/point", "≤ 25 B/point", drive_sealed_bpp <= 25,
           f"{25 - drive_sealed_bpp:.1f} B/point to spare" if drive_sealed_bpp <= 25 else f"{drive_sealed_bpp - 25:.1f} B/point over")
if have_sync and drain_pps:
    target(f"drain: points/s to a local receiver ({n(drain_points)} points, batch 1000)", f"{rate(drain_pps)}points/s",
           "≥ 500 k/s", drain_pps >= 500_000,
           f"{drain_pps / 500_000:.2f}× the target" if drain_pps >= 500_000 else f"{drain_pps / 500_000:.2f} of the target; needs {500_000 / drain_pps:.2f}× faster")
    for key, label in (("drain_genslow", "batch 1000"), ("drain_gen200slow", "batch 200")):
        sp_, ss_ = num(key + ".points"), num(key + ".s")
        if sp_ and ss_:
            v = sp_ / ss_
            target(f"drain on slow storage (every fsync +20 ms, bench/slowfsync.c), {label}", f"{rate(v)}points/s",
                   "≥ 300 k/s", v >= 300_000,
                   f"{v / 300_000:.2f}× the target" if v >= 300_000 else f"{v / 300_000:.2f} of the target; needs {300_000 / v:.2f}× faster")
    tp, ts = num("drain_traccar.points"), num("drain_traccar.s")
    if tp and ts:
        target(f"drain: protocol traccar, one point per request ({n(tp)} points)", f"{rate(tp / ts)}points/s",
               "≥ 2,000/s", tp / ts >= 2000,
               f"{tp / ts / 2000:.2f}× the target" if tp / ts >= 2000 else f"{tp / ts / 2000:.2f} of the target; needs {2000 * ts / tp:.2f}× faster")
    if zcat_j_pps:
        r = zcat_j_pps / drain_pps
        target("drain: within 2× of zcat on the same segments", f"zcat is {ratio(r)} faster", "≤ 2×", r <= 2,
               f"{2 / r:.2f}× margin" if r <= 2 else f"needs {r / 2:.2f}× faster")
    if sync_rss_big:
        mb = sync_rss_big / 1024
        target(f"memory: overland-sync peak RSS at a {n(drain_points)}-point backlog", f"{mb:.1f} MiB", "< 30 MB",
               sync_rss_big * 1024 < 30e6, f"{30e6 / 1048576 - mb:.1f} MiB to spare" if sync_rss_big * 1024 < 30e6 else f"{mb - 30e6 / 1048576:.1f} MiB over")
    if noop_now:
        v = noop_now["median"]
        target("latency: no-op overland-sync (nothing to send, --now)", ms(v) + f" median (best {ms(noop_now['min'])})", "< 20 ms", v < 0.020,
               f"{(0.020 - v) * 1000:.1f} ms to spare" if v < 0.020 else f"{(v - 0.020) * 1000:.1f} ms over ({v / 0.020:.2f}×)")
if status:
    v = status["median"]
    target(f"latency: overland status at a {n(backlog)}-point backlog", ms(v) + f" median (best {ms(status['min'])})", "< 50 ms", v < 0.050,
           f"{(0.050 - v) * 1000:.1f} ms to spare" if v < 0.050 else f"{(v - 0.050) * 1000:.1f} ms over ({v / 0.050:.2f}×)")

# ---------------------------------------------------------------------------------------
p("# Performance")
p("")
p(f"Measured by `bench/run{' --quick' if QUICK else ''}` on {R.get('date')} in {int(num('total_s', 0)) // 60} min "
  f"{int(num('total_s', 0)) % 60} s (after {int(num('build_s', 0))} s of `swift build -c release`); this file is its output, regenerate it with the same command "
  "(`bench/run --quick` is a one-minute smoke run that writes `bench/out/performance-quick.md`). "
  f"Every timed figure is the **best of {REPS}** runs (all runs are listed in `bench/out/run-{R.get('mode')}/results.tsv`); "
  "latencies are hyperfine medians. `$BIN` is a copy of the release binaries (`swift build -c release`), `$TMP` the run's "
  "`mktemp -d` directory. Ratios are *ours ÷ peer* in throughput: above 1 we are faster.")
if QUICK:
    p("")
    p("**Quick mode: small inputs and single runs, for a smoke test only; the figures are not the published ones.**")
p("")
p("## Machine")
p("")
p("| | |")
p("|---|---|")
p(f"| CPU | {R.get('cpu')}, {R.get('nproc')} cores (`nproc`), {R.get('mhz')} MHz |")
p(f"| memory | {R.get('memory')} |")
p(f"| system | {R.get('os')}, {R.get('kernel')}; temp files on {R.get('fs')} |")
p(f"| Swift | {R.get('swift')} |")
p(f"| peers | {R.get('tools')} |")
p(f"| code | commit {R.get('commit')}, {R.get('dirty')} tracked files modified in the working tree |")
p(f"| load average | {R.get('load_start')} at the start, {R.get('load_end')} at the end (other work on the machine shows here) |")
p("")

p("## Targets")
p("")
p("| target | measured | goal | result |")
p("|---|---|---|---|")
for name, measured, goal, met, margin in targets:
    p(f"| {name} | {measured} | {goal} | {'**met**' if met else '**missed**'}: {margin} |")
if not have_sync:
    p("| drain, sync memory, no-op sync | not measured | | `overland-sync` was not available when this ran |")
p("")

# ---------------------------------------------------------------------------------------
p("## Ingest: NMEA to the journal, end to end")
p("")
p("`overland-log FILE --journal DIR`: read, parse, assemble fixes, encode Overland JSON (one thread), "
  "then, on a second thread while the first goes on, deflate (level 4, members of about 256 KiB, four per 1 MiB commit), "
  "write, fsync, and seal every 4 MiB of records (journal-format.md section 7: a bulk import's large members "
  "are kept, so the seal member is appended in place). The peers read the same bytes: gpsd's `gpsdecode -j` "
  "(NMEA to JSON TPV reports), gpsbabel to GeoJSON and to GPX. `gzip -6` and `zcat` run on the "
  "journal's own records as JSON lines (what we write, compressed once, with nothing else): the "
  "compression and decompression limits. Time is wall-clock; CPU is user + system time of that run, "
  "summed over threads: above the wall time, both cores worked; well below it, the difference is spent "
  "waiting, mostly for fsync.")
for name, title in INPUTS.items():
    f = F.get(name)
    if not f:
        continue
    p("")
    p(f"### {title}")
    p("")
    p(f"{n(num(name + '.bytes'))} bytes, {n(f['sentences'])} sentences → {n(f['points'])} points "
      f"({n(num(name + '.jsonl_bytes'))} bytes of JSON lines, {n(num(name + '.jsonl_bytes') / f['records'] if f['records'] else None)} B/point).")
    if name == "gpsd":
        p("Ours reads the files in turn (each a separate stream); the peers read them concatenated. "
          "Start-up dominates at this size.")
    if name == "drive":
        p("Start-up dominates at this size: see the ×%s row for throughput on the real drive." % R.get("x20.copies"))
    p("")
    p("| tool | time | CPU | sentences/s | points/s | ours ÷ it | peak RSS | command |")
    p("|---|---:|---:|---:|---:|---:|---:|---|")
    p(f"| **overland-log** | {f['s']:.3f} s | {n(num(name + '.ours.cpu_s'), 2)} s | {rate(f['sps'])} | {rate(f['pps'])} | 1 | {n(num(name + '.ours.rss_kb') / 1024, 1)} MiB | {cmd(name + '.ours')} |")
    tpv = num(name + ".gpsdecode.tpv")
    for peer, label in (("gpsdecode", "gpsdecode -j"), ("gpsbabel_geojson", "gpsbabel → GeoJSON"), ("gpsbabel_gpx", "gpsbabel → GPX")):
        ps = f[peer]
        if not ps:
            continue
        note = f" ({n(tpv)} TPV)" if peer == "gpsdecode" and tpv is not None else ""
        p(f"| {label}{note} | {ps:.3f} s | {n(num(name + '.' + peer + '.cpu_s'), 2)} s | {rate(f['sentences'] / ps)} | | {ratio(f[peer + '.ratio'])} | "
          f"{n(num(name + '.' + peer + '.rss_kb') / 1024, 1)} MiB | {cmd(name + '.' + peer)} |")
    gz = num(name + ".gzip6.s")
    if gz:
        p(f"| gzip -6 of the records (compression limit) | {gz:.3f} s | {n(num(name + '.gzip6.cpu_s'), 2)} s | | {rate(f['gzip6_pps'])} | {ratio(f['gzip6.ratio'])} | | {cmd(name + '.gzip6')} |")
    z = num(name + ".zcat.s")
    if z:
        p(f"| zcat of that (decompression limit) | {z:.3f} s | {n(num(name + '.zcat.cpu_s'), 2)} s | | {rate(f['zcat_pps'])} | | | {cmd(name + '.zcat')} |")
p("")

# ---------------------------------------------------------------------------------------
p("## Size: compressed bytes per point")
p("")
p("Sealed: after `overland journal seal` (see journal-format.md for what sealing does). Bulk active: the active "
  "segment as a file import leaves it (members of about 256 KiB and equal size, four per 1 MiB commit, level 4). gzip: the same JSON lines "
  "as one whole file (`gzip -6`, `gzip -9`). " + cmd("seal"))
p("")
p("| input | records | JSON B/point | sealed | bulk active | gzip -6 | gzip -9 |")
p("|---|---:|---:|---:|---:|---:|---:|")
for name in ("drive", "x20", "gen"):
    s_, b_ = sealed.get(name), bulk.get(name)
    recs = num(name + ".records")
    if not s_ or not recs:
        continue
    active_b = (b_["active_bytes"] + b_["sealed_bytes"]) / b_["records"] if b_ and b_["records"] else None
    p(f"| {INPUTS[name].split(' (')[0]} | {n(recs)} | {n(num(name + '.jsonl_bytes') / recs, 1)} | **{n(bpp(s_, 'sealed'), 1)}** | "
      f"{n(bpp(b_, 'active'), 1)} (all segments: {n(active_b, 1)}) | {n(num(name + '.gzip6_bytes') / recs, 1)} | {n(num(name + '.gzip9_bytes') / recs, 1)} |")
p("")
if live:
    interval, commit = num("live.interval"), num("live.commit")
    per_member = commit / interval if interval else None
    p(f"**While active, a live logger:** the first {R.get('live.epochs')} epochs of the real drive fed through a pipe "
      f"at one epoch every {R.get('live.interval')} s to `overland-log --commit-interval {R.get('live.commit')}` "
      f"(so about {n(per_member)} points per commit, one gzip member each): {n(live.get('active_records'))} points, "
      f"{n(live.get('active_bytes'))} bytes, **{n(live_bpp, 1)} B/point** until the segment is sealed "
      f"(hourly, or at 4 MiB of records); exit status {R.get('live.rc')}. " + cmd("live"))
    if QUICK or interval != 1:
        p("(Paced faster than real time with the commit interval scaled by the same factor: the framing, "
          "points per member, is what sets the size.)")
    p("")

# ---------------------------------------------------------------------------------------
p("## Sync drain")
p("")
if not have_sync:
    p("Not measured: `overland-sync` (Sources/OverlandCLI/SyncCommand.swift) did not exist or did not build when this ran.")
else:
    p(f"`overland-sync --now` uploads the whole backlog to `bench/acksrv.c`, a C receiver on 127.0.0.1 that reads each "
      f"request's body and answers `{{\"result\":\"ok\"}}` without parsing it (HTTP/1.1 keep-alive, epoll). Each run "
      f"drains a fresh copy of the journal (delivered segments are kept for `retention_days`, 7 by default, so none is deleted during the run). Batch size "
      f"{R.get('sync.batch_size')} (`overland config set batch_size 1000`, the largest allowed). {cmd('sync.config')}")
    p("")
    p("| what | points | time | CPU | points/s | vs overland-sync | peak RSS | command |")
    p("|---|---:|---:|---:|---:|---:|---:|---|")
    p(f"| **overland-sync**, large backlog | {n(drain_points)} | {n(drain_s, 3)} s | {n(num('drain_gen.cpu_s'), 2)} s | {rate(drain_pps)} | 1 | {n(sync_rss_big / 1024 if sync_rss_big else None, 1)} MiB | {cmd('drain_gen')} |")
    p2, s2 = num("drain_gen200.points"), num("drain_gen200.s")
    if p2 and s2:
        p(f"| overland-sync, large backlog, batch size 200 (the default) | {n(p2)} | {s2:.3f} s | {n(num('drain_gen200.cpu_s'), 2)} s | {rate(p2 / s2)} | {ratio((p2 / s2) / drain_pps if drain_pps else None)} | {n(num('drain_gen200.rss_kb') / 1024, 1)} MiB | `overland config set batch_size 200`, then as above |")
    for key, label in (("drain_genslow", "batch size 1000"), ("drain_gen200slow", "batch size 200")):
        sp_, ss_ = num(key + ".points"), num(key + ".s")
        if sp_ and ss_:
            p(f"| overland-sync, large backlog, {label}, on slow storage: every fsync waits 20 ms ({n(num(key + '.fsyncs'))} fsyncs) | {n(sp_)} | {ss_:.3f} s | {n(num(key + '.cpu_s'), 2)} s | {rate(sp_ / ss_)} | {ratio((sp_ / ss_) / drain_pps if drain_pps else None)} | {n(num(key + '.rss_kb') / 1024, 1)} MiB | {cmd(key)} |")
    sp = num("drain_small.points")
    ss = num("drain_small.s")
    p(f"| **overland-sync**, small backlog | {n(sp)} | {n(ss, 3)} s | {n(num('drain_small.cpu_s'), 2)} s | {rate(sp / ss if ss else None)} | | {n(sync_rss_small / 1024 if sync_rss_small else None, 1)} MiB | {cmd('drain_small')} |")
    tp, ts = num("drain_traccar.points"), num("drain_traccar.s")
    if tp and ts:
        p(f"| overland-sync, small backlog, protocol traccar: one point per request, one keep-alive connection | {n(tp)} | {ts:.3f} s | {n(num('drain_traccar.cpu_s'), 2)} s | {rate(tp / ts)} | {ratio((tp / ts) / drain_pps if drain_pps else None)} | {n(num('drain_traccar.rss_kb') / 1024, 1)} MiB | {cmd('drain_traccar')} |")
    if zcat_j:
        p(f"| zcat of the same journal's segments ({n(num('zcat_journal.bytes'))} bytes) | {n(drain_points)} | {zcat_j:.3f} s | {n(num('zcat_journal.cpu_s'), 2)} s | {rate(zcat_j_pps)} | {ratio(zcat_j_pps / drain_pps if drain_pps else None)} faster | | {cmd('zcat_journal')} |")
    if ceiling_pps:
        p(f"| the receiver's own ceiling: a C client posting a {n(num('ceiling.body_bytes'))}-byte, 1000-point body {R.get('ceiling.requests')} times on one connection | "
          f"{n(num('ceiling.requests') * 1000)} | {num('ceiling.s'):.3f} s | | {rate(ceiling_pps)} | {ratio(ceiling_pps / drain_pps if drain_pps else None)} faster | | {cmd('ceiling')} |")
    p("")
    if sync_rss_small and sync_rss_big:
        growth = sync_rss_big / sync_rss_small
        p(f"Peak RSS against the backlog: {n(sync_rss_small / 1024, 1)} MiB at {n(sp)} points, "
          f"{n(sync_rss_big / 1024, 1)} MiB at {n(drain_points)}: {ratio(drain_points / sp)} the points, "
          f"{ratio(growth)} the memory (+{(sync_rss_big - sync_rss_small) / 1024:.1f} MiB), "
          + ("flat." if growth < 1.10 else "nearly flat but not quite: see the memory profile below."))
        p("")

# ---------------------------------------------------------------------------------------
p("## Memory (peak RSS, GNU time `%M`)")
p("")
p("| process | peak RSS |")
p("|---|---:|")
if F.get("gen"):
    p(f"| overland-log, bulk import of {n(F['gen']['points'])} points | {n(num('gen.ours.rss_kb') / 1024, 1)} MiB |")
if num("live.rss_kb"):
    p(f"| overland-log, live from a pipe ({R.get('live.epochs')} epochs) | {n(num('live.rss_kb') / 1024, 1)} MiB |")
if have_sync:
    p(f"| overland-sync, {n(num('drain_small.points'))}-point backlog | {n(sync_rss_small / 1024 if sync_rss_small else None, 1)} MiB |")
    p(f"| overland-sync, {n(drain_points)}-point backlog | {n(sync_rss_big / 1024 if sync_rss_big else None, 1)} MiB |")
if F.get("gen"):
    for peer, label in (("gpsdecode", "gpsdecode -j"), ("gpsbabel_geojson", "gpsbabel → GeoJSON"), ("gpsbabel_gpx", "gpsbabel → GPX")):
        p(f"| {label}, same {n(F['gen']['sentences'])} sentences | {n(num('gen.' + peer + '.rss_kb') / 1024, 1)} MiB |")
p("")

# ---------------------------------------------------------------------------------------
p("## Latency (hyperfine, no shell, 3 warm-up runs)")
p("")
p("| command | median | mean ± σ | min … max | runs | command line |")
p("|---|---:|---:|---:|---:|---|")
for label, h, key in ((f"overland status, {n(backlog)}-point backlog", status, "status"),
                      (f"overland journal stats, same journal", jstats, "stats"),
                      ("overland-sync --now, nothing to send", noop_now, "noop_now"),
                      ("overland-sync, nothing to send and not due", noop_due, "noop_due")):
    if h:
        p(f"| {label} | {ms(h['median'])} | {ms(h['mean'])} ± {ms(h['sd'])} | {ms(h['min'])} … {ms(h['max'])} | {h['runs']} | {cmd(key)} |")
p("")

# ---------------------------------------------------------------------------------------
p("## Profiles of the targets missed")
p("")
missed = [t for t in targets if not t[3]]
if not missed:
    p("Every target was met; the profiles are in `bench/out/run-%s/` all the same." % R.get("mode"))
    p("")
ingest_missed = any(not t[3] and t[0].startswith("ingest") for t in targets)
pi = load("profile-ingest.json")
pg = load("profile-gpsdecode.json")
if ingest_missed and pi:
    b = pi["buckets"]
    per = lambda v: v / pi["units"] if v else None  # noqa: E731
    share = lambda v: 100 * v / pi["total"] if v else 0  # noqa: E731
    deflate = b.get("all deflate (Deflate.compress)")
    decoding = b.get("decoding thread: read, NMEA, points, JSON (LoggingSession.run)")
    committing = b.get("commit thread: deflate, write, fsync, seal (JournalAppender.commitLocked)")
    seal = b.get("seal, all of it (JournalAppender.seal)")
    validate = b.get("record validation, wherever called (RecordLine.problem)")
    inflate = b.get("all inflate (Deflate.inflate)")
    nmea = b.get("NMEA decoding (FixSource.push)")
    encode = b.get("point encoding (LocationFeature.encodeJSONLine)")
    p(f"### Ingest ({int(num('profile.epochs', 0)):,} generated epochs, {n(num('profile.sentences'))} sentences)")
    p("")
    p(cmd("profile_ingest") + " and, for comparison, " + cmd("profile_gpsdecode"))
    p("")
    p(read("profile-ingest.md") or "")
    p("")
    if pg:
        ours_per, theirs_per = pi["total"] / pi["units"], pg["total"] / pg["units"]
        p(f"- gpsdecode, for comparison: {theirs_per:,.0f} instructions per sentence, {theirs_per / ours_per:.2f}× ours, "
          f"while on the wall clock we run {ratio(g.get('gpsdecode.ratio'))} as fast as it on the same input. Instruction counts compare "
          "versions of our own code, not programs: a third of gpsdecode's are `rep movsb` copies that valgrind counts "
          "byte by byte, and zlib's match search spends its cycles waiting on memory.")
    gz_ratio = None
    if g.get("gzip6_pps") and g.get("gpsdecode"):
        epochs_per_s_gpsdecode = g["points"] / g["gpsdecode"]
        gz_ratio = g["gzip6_pps"] / epochs_per_s_gpsdecode
    p("")
    p("**What bounds it.** ")
    lines = []
    if decoding and committing:
        lines.append(f"the work runs on two threads: the decoding thread (reading, NMEA, points, JSON) "
                     f"{share(decoding):.0f} % of our instructions ({n(per(decoding))} per sentence), the commit thread "
                     f"(deflate, write, fsync, seal) {share(committing):.0f} % ({n(per(committing))} per sentence); the "
                     "slower of the two sets the pace, on two cores that nothing else uses")
    if deflate:
        lines.append(f"deflate is {share(deflate):.0f} % ({n(per(deflate))} per sentence), "
                     f"zlib as a whole {100 * pi['libz_self'] / pi['total']:.0f} %")
    if seal:
        lines.append(f"sealing {share(seal):.0f} %" + (f" (inflating {share(inflate):.0f} %)" if inflate else ""))
    if validate:
        lines.append(f"record checks {share(validate):.0f} %")
    if nmea and encode:
        lines.append(f"the NMEA decoding and the point encoding are {share(nmea):.0f} % and {share(encode):.0f} %")
    text = "; ".join(lines) + "."
    p(text[:1].upper() + text[1:])
    if gz_ratio is not None:
        budget = 5 / gz_ratio
        p("")
        p(f"`gzip -6` alone, on nothing but our records, runs at {rate(g['gzip6_pps'])}points/s, {ratio(gz_ratio)} "
          f"gpsdecode's epochs/s on the same input: on one core, deflate at level 6 would take {100 * budget:.0f} % of "
          "the time a 5× target leaves for the whole ingest; hence the commit thread, and level 4 for commits. "
          "A machine whose second core is busy (other work, a build) runs both threads on one core and misses "
          "the target.")
    p("")
def strace_counts():
    text = read("strace.drain")
    counts, seconds = {}, {}
    if text:
        for line in text.splitlines():
            parts = line.split()
            if len(parts) >= 5 and parts[-1].isidentifier() and parts[-1] != "syscall" and parts[-1] != "total":
                try:
                    counts[parts[-1]] = int(parts[3])
                    seconds[parts[-1]] = float(parts[1])
                except ValueError:
                    pass
    return counts, seconds


drain_missed = any(not t[3] and t[0].startswith("drain") for t in targets)
if drain_missed:
    pd = load("profile-drain.json")
    p("### Sync drain")
    p("")
    cpu = num("drain_gen.cpu_s")
    if drain_s and cpu:
        p(f"Wall {drain_s:.2f} s for {cpu:.2f} s of CPU (user + system, all threads): "
          + ("CPU below wall time although two threads work: part of the run waits (the cursor's fsync, the round trips), "
             if cpu < 0.9 * drain_s else "CPU-bound, ")
          + f"while `zcat` of the same segments takes {n(zcat_j, 2)} s. Profile with perf (valgrind 3.19 crashes as "
          "overland-sync starts its threads; cpu-clock samples count time on a CPU, not time waiting): " + cmd("profile_drain"))
        p("")
    body = read("profile-drain.md")
    if body:
        p(body)
        p("")
    counts, seconds = strace_counts()
    requests = None
    stderr = read("drain-gen.stderr") or ""
    import re as _re
    m = _re.search(r"in (\d+) requests", stderr)
    if m:
        requests = int(m.group(1))
    if counts:
        fs = counts.get("fsync", 0) + counts.get("fdatasync", 0)
        rn = sum(counts.get(k, 0) for k in ("rename", "renameat", "renameat2"))
        fsync_s = seconds.get("fsync", 0) + seconds.get("fdatasync", 0)
        p(f"System calls ({cmd('strace_drain')}): {n(fs)} fsync and {n(rn)} renames"
          + (f" for {n(requests)} requests ({fs / requests:.1f} fsync per batch: the cursor file and its directory)" if requests else "")
          + (f"; the fsync calls took {fsync_s:.2f} s of wall time in all (strace -w, under strace)" if fsync_s else "")
          + "; all counts in `bench/out/run-%s/strace.drain`." % R.get("mode"))
        p("")
    if pd:
        b = pd["buckets"]
        parts = []
        v = b.get("re-validating each record (RecordLine.checkLines)")
        if v:
            parts.append(f"re-validating every record's JSON as it is read ({v:.0f} % of on-CPU samples), which zcat does not do")
        libz = sum(x for k, x in pd["objects"].items() if k.startswith("libz"))
        if libz:
            parts.append(f"zlib, inflate and CRC ({libz:.0f} %), which is all zcat does")
        v = b.get("moving the cursor (Journal.advanceCursor: write, fsync, rename)")
        if v:
            parts.append(f"moving the cursor durably after every batch ({v:.0f} % on CPU, plus the time waiting for the disk)")
        v = b.get("the HTTP client (NIO event loop thread)")
        if v:
            parts.append(f"the HTTP client ({v:.0f} %)")
        kernel = pd["objects"].get("[kernel.kallsyms]")
        p("**What bounds it:** " + "; ".join(parts) + "."
          + (f" The kernel (writes to the socket, fsync, scheduling) takes {kernel:.0f} % of the samples." if kernel else ""))
        p("")

memory_missed = any(not t[3] and t[0].startswith("memory") for t in targets)
if memory_missed:
    p("### overland-sync memory")
    p("")
    base, version = num("noop.rss_kb"), num("version.rss_kb")
    if base and version:
        p(f"Before any work, `overland-sync --help` peaks at {version / 1024:.1f} MiB and a no-op run "
          f"(nothing to send, the HTTP client started) at {base / 1024:.1f} MiB; the drain adds "
          f"{(num('drain_small.rss_kb') - base) / 1024:.1f} MiB at {n(num('drain_small.points'))} points and "
          f"{(num('drain_gen.rss_kb') - base) / 1024:.1f} MiB at {n(drain_points)}.")
        p("")
    body = read("smaps-sync.md")
    if body:
        p(f"What the resident memory is, once the large backlog is drained ({cmd('smaps')}):")
        p("")
        p(body)
        p("")
        sm = load("smaps-sync.json")
        text = ("RSS counts every resident page of the executable's code and of the shared libraries (the Swift "
                "runtime; Foundation with its ICU, which AsyncHTTPClient and OverlandRecorder's DeviceStatusReader import), "
                "shared with other processes or not")
        if sm:
            foundation = sum(v for k, v in sm["mappings_kb"].items() if "Foundation" in k)
            limit_kb = 30e6 / 1024
            text += (f": file-backed pages are {sm['file_kb'] / 1024:.1f} MiB of it ({100 * sm['file_kb'] / limit_kb:.0f} % of "
                     f"the 30 MB target) whatever the backlog, Foundation alone {foundation / 1024:.1f} MiB and the "
                     f"executable {sm['mappings_kb'].get('overland-sync', 0) / 1024:.1f} MiB; the anonymous memory, "
                     f"{sm['anon_kb'] / 1024:.1f} MiB here, is the part that grows with the backlog")
        p(text + ".")
        p("")

noop_missed = any("no-op" in t[0] and (not t[3] or (noop_now and noop_now["median"] > 0.8 * 0.020)) for t in targets)
if noop_missed and read("profile-noop.md"):
    p("### No-op sync" + ("" if noop_now and noop_now["median"] < 0.020 else ""))
    p("")
    pn = load("profile-noop.json")
    if noop_now and noop_now["median"] < 0.020:
        p(f"Met, with only {100 * (1 - noop_now['median'] / 0.020):.0f} % to spare"
          + (f" (its mean, {ms(noop_now['mean'])}, is over it)" if noop_now["mean"] >= 0.020 else "")
          + ", so its profile too.")
        p("")
    if pn:
        o, b = pn["objects"], pn["buckets"]
        ld = sum(v for k, v in o.items() if k.startswith("ld-linux"))
        parts = [f"the dynamic linker {ld:.0f} % of the on-CPU samples",
                 f"the Swift runtime (libswiftCore: metadata and protocol-conformance lookups) {o.get('libswiftCore.so', 0):.0f} %",
                 f"the kernel (exec, page faults) {o.get('[kernel.kallsyms]', 0):.0f} %"]
        for label, key in (("argument parsing", "argument parsing"), ("the sync engine itself", "SyncEngine.run"),
                           ("the HTTP client's set-up and shutdown", "HTTP client set-up and shutdown (HTTPClientTransport)")):
            if b.get(key) is not None:
                parts.append(f"{label} {b[key]:.0f} %" if b[key] >= 1 else f"{label} {b[key]:.1f} %")
        text = "**What bounds it:** on the CPU, process start-up, not the work: " + ", ".join(parts) + "."
        st = read("strace.noop")
        if st:
            rows = {l.split()[-1]: l.split() for l in st.splitlines() if len(l.split()) >= 5}
            fs, rn, fut = rows.get("fsync"), rows.get("rename"), rows.get("futex")
            if fs:
                text += (f" Off the CPU, a no-op run still makes {fs[3]} fsync"
                         + (f" and {rn[3]} rename calls (atomic replacements of small state files)" if rn else " calls")
                         + f", {float(fs[1]) * 1000:.1f} ms of wall time under strace")
                if fut:
                    text += (f", and waits {float(fut[1]) * 1000:.1f} ms in futex (thread hand-offs: the Swift concurrency "
                             "runtime, the HTTP client's event loop starting and stopping)")
                text += (f"; {cmd('strace_noop')}." if cmd("strace_noop") else ".")
        p(text)
        p("")
    p(cmd("profile_noop"))
    p("")
    p(read("profile-noop.md"))
    p("")
status_missed = any(not t[3] and "status" in t[0] for t in targets)
if status_missed and read("profile-status.md"):
    p("### overland status")
    p("")
    p(cmd("profile_status"))
    p("")
    p(read("profile-status.md"))
    p("")

p("## Inputs")
p("")
p(f"- Generated: {cmd('gen.generate')} ({n(num('gen.generate_s'), 1)} s). 1 Hz, GGA+GSA+RMC+VTG per epoch, u-blox style "
  "(5-decimal minutes), valid checksums, CRLF; a vehicle driving city, road and highway legs with stops and parking, "
  "smooth turns, accelerations within ±2.5 m/s², correlated position noise, altitude noise, drifting satellites and "
  "DOPs, a missed epoch in 2,000 and short no-fix outages; starts 2024-02-27 21:30 UTC, so it crosses midnight "
  "every day, a leap day and a month end.")
p(f"- Real drive ×{R.get('x20.copies')}: {cmd('x20.generate')}; the 98-minute GlobalSat DG-100 drive of "
  "`../shared/samples/drive/` (GPL, read in place, never copied into the repository).")
p(f"- The {R.get('gpsd.files')} gpsd regression captures of `../shared/samples/gpsd/`, as they are (noise, bad "
  "checksums, undated fixes included).")
p(f"- The small backlog for `overland-sync`: the first {n(num('small.epochs'))} epochs of the generated input "
  f"({n(small.get('records') if small else None)} points).")
p("")
readback = os.path.join(RAW, "readback.md")
if os.path.exists(readback):
    p("## Read-back's cost (verify)")
    p("")
    p("`overland-sync` draining to a local OwnTracks Recorder-shaped server (bench/readback.py), "
      "best of the repetitions, with `verify` off and on. Target: on costs at most 1.5x off.")
    p("")
    with open(readback) as f:
        p(f.read().rstrip("\n"))
    p("")
# What is measured apart from bench/run, kept beside it and carried into every report: the
# live 1 Hz logger over ten minutes and more (bench/live.py: it takes real time, so
# bench/live.md), then bench/notes/*.md in name order (bench/ingest, bench/mqtt, and
# measurements made by hand, each with its date and command).
here = os.path.dirname(os.path.abspath(__file__))
live = os.path.join(here, "live.md")
if os.path.exists(live):
    with open(live) as f:
        p(f.read().rstrip("\n"))
    p("")
notes_dir = os.path.join(here, "notes")
notes = sorted(name for name in os.listdir(notes_dir) if name.endswith(".md")) if os.path.isdir(notes_dir) else []
if notes:
    p("## Measured apart from bench/run")
    p("")
    p("Kept in `bench/notes/` and carried into every report as they are: each says when, on "
      "what build and with which command it was measured.")
    p("")
    for name in notes:
        with open(os.path.join(notes_dir, name)) as f:
            p(f.read().rstrip("\n"))
        p("")
print("\n".join(out))
