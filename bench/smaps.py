#!/usr/bin/env python3
"""What a running process's resident memory is made of: /proc/PID/smaps summed by
mapping (file-backed code and data of each binary or library, and anonymous memory),
with VmHWM (the peak RSS) and the thread count. Markdown on standard output.

    python3 bench/smaps.py PID [JSON-OUT]
"""
import json
import re
import sys

pid = sys.argv[1]
rss = {}
name = None
with open(f"/proc/{pid}/smaps") as f:
    for line in f:
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            parts = line.split()
            name = parts[5] if len(parts) > 5 else ""
            if name == "" or name.startswith("[heap") or name.startswith("[stack"):
                name = "anonymous (heap, malloc arenas, thread stacks)"
            else:
                name = name.rsplit("/", 1)[-1]
        elif line.startswith("Rss:"):
            rss[name] = rss.get(name, 0) + int(line.split()[1])
status = dict(re.findall(r"^(\w+):\s+(.*)$", open(f"/proc/{pid}/status").read(), re.M))
total = sum(rss.values())
if len(sys.argv) > 2:
    kb = lambda key: int(status.get(key, "0 kB").split()[0])  # noqa: E731
    with open(sys.argv[2], "w") as f:
        json.dump({"hwm_kb": kb("VmHWM"), "rss_kb": kb("VmRSS"), "anon_kb": kb("RssAnon"), "file_kb": kb("RssFile"),
                   "mappings_kb": rss}, f)
print(f"- VmHWM (peak RSS) {status.get('VmHWM')}, VmRSS now {status.get('VmRSS')} "
      f"(anonymous {status.get('RssAnon')}, file-backed {status.get('RssFile')}), {status.get('Threads')} threads")
print()
print("| mapping | RSS |")
print("|---|---:|")
rest = 0
for n, kb in sorted(rss.items(), key=lambda kv: -kv[1]):
    if kb >= 300:
        print(f"| {n} | {kb / 1024:.1f} MiB |")
    else:
        rest += kb
print(f"| everything else | {rest / 1024:.1f} MiB |")
print(f"| **total** | **{total / 1024:.1f} MiB** |")
