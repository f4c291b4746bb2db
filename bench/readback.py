#!/usr/bin/env python3
"""Read-back's cost (issue 24): overland-sync draining N points to a local OwnTracks
Recorder-shaped server, with `verify` off and on, best of --reps each.

    python3 bench/readback.py --bin .build/release --points 100000 [--reps 3]

The server (Python, HTTP/1.1 keep-alive, 127.0.0.1) is shaped from the Recorder's source
as the end-to-end tests' stand-in is: `POST /pub?u=&d=` files an OwnTracks location and
answers `[]`; `GET /api/0/locations?user&device&from&to` answers `{"data":[..]}` for the
range, both bounds exclusive (times `%Y-%m-%dT%H:%M:%S`, UTC), user and device as filed. The journal comes from bench/gen_nmea.py through
overland-log, and each run drains a fresh copy of it. Target: verify on costs at most
1.5x verify off. Prints one Markdown table.
"""
import argparse
import bisect
import calendar
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Store:
    def __init__(self):
        self.lock = threading.Lock()
        self.times = {}   # "user/device" -> sorted list of tst
        self.points = {}  # "user/device" -> list of (tst, lat, lon) in the same order

    def add(self, key, tst, lat, lon):
        with self.lock:
            times = self.times.setdefault(key, [])
            points = self.points.setdefault(key, [])
            index = bisect.bisect_right(times, tst)
            times.insert(index, tst)
            points.insert(index, (tst, lat, lon))

    def range(self, key, low, high):
        """Strictly between `low` and `high`: the Recorder's storage.c skips
        `secs <= s_lo || secs >= s_hi`."""
        with self.lock:
            times = self.times.get(key, [])
            points = self.points.get(key, [])
            return points[bisect.bisect_right(times, low):bisect.bisect_left(times, high)]


def filed(name):
    """`name` as the Recorder files it (util.c `ut_lower`): ASCII letters lowered, every
    other byte but a digit `-`."""
    return "".join(chr(b).lower() if chr(b).isascii() and chr(b).isalnum() else "-" for b in name.encode())


def recorder_time(text):
    return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))


def make_handler(store):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def setup(self):
            super().setup()
            # One segment per reply, sent at once: without this every request waits out
            # the client's delayed ACK (40 ms) and the server, not the sync, is measured.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def reply(self, status, body):
            data = body.encode()
            head = "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (status, len(data))
            self.wfile.write(head.encode() + data)

        def do_POST(self):
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if url.path != "/pub":
                return self.reply(404, "")
            message = json.loads(body)
            if message.get("_type") == "location":
                store.add(filed(query.get("u", "")) + "/" + filed(query.get("d", "")), message["tst"], message["lat"], message["lon"])
            self.reply(200, "[]")

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            if url.path != "/api/0/locations" or "user" not in query or "device" not in query:
                return self.reply(416, "user and device are required\n")
            now = int(time.time())
            low = recorder_time(query["from"]) if "from" in query else now - 6 * 3600
            high = recorder_time(query["to"]) if "to" in query else now
            data = [{"_type": "location", "tst": t, "lat": a, "lon": o}
                    for (t, a, o) in store.range(query["user"].lower() + "/" + query["device"].lower(), low, high)]
            self.reply(200, json.dumps({"data": data, "status": 200}))

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=".build/release")
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    binaries = os.path.abspath(args.bin)
    work = tempfile.mkdtemp(prefix="overland-readback-bench-")
    try:
        env = dict(os.environ, HOME=work, XDG_CONFIG_HOME=work + "/config", XDG_DATA_HOME=work + "/data")
        for key in ("OVERLAND_CONFIG", "OVERLAND_URL", "OVERLAND_TOKEN", "OVERLAND_DEVICE_ID", "OVERLAND_JOURNAL"):
            env.pop(key, None)
        here = os.path.dirname(os.path.abspath(__file__))
        nmea = work + "/drive.nmea"
        with open(nmea, "w") as out:
            subprocess.run([sys.executable, here + "/gen_nmea.py", "--epochs", str(int(args.points * 1.02)), "--seed", "1"],
                           stdout=out, check=True)
        subprocess.run([binaries + "/overland-log", nmea, "--journal", work + "/journal"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        store_box = {}
        server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler_proxy(store_box))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = "http://127.0.0.1:%d" % server.server_address[1]

        def config(*pairs):
            for key, value in pairs:
                subprocess.run([binaries + "/overland", "config", "set", key, value], env=env, check=True,
                               stdout=subprocess.DEVNULL)

        config(("endpoint", base + "/pub"), ("protocol", "owntracks"), ("profile", "owntracks-recorder"),
               ("device_id", "bob/van"), ("retention_days", "30"))
        results = {}
        for verify in ("false", "true"):
            config(("verify", verify))
            best = None
            for _ in range(args.reps):
                store_box["store"] = Store()
                journal = work + "/run"
                shutil.rmtree(journal, ignore_errors=True)
                shutil.copytree(work + "/journal", journal)
                started = time.monotonic()
                done = subprocess.run([binaries + "/overland-sync", "--journal", journal, "--now", "--accept-copy"], env=env,
                                      capture_output=True, text=True)
                elapsed = time.monotonic() - started
                if done.returncode != 0:
                    sys.exit("overland-sync (verify %s) exited %d: %s" % (verify, done.returncode, done.stderr))
                held = sum(len(v) for v in store_box["store"].times.values())
                best = elapsed if best is None else min(best, elapsed)
            results[verify] = (best, held)
        server.shutdown()
        off, on = results["false"][0], results["true"][0]
        print("| points | verify off | verify on | ratio (target <= 1.5) |")
        print("|---:|---:|---:|---:|")
        print("| %d | %.2f s | %.2f s | %.2f |" % (results["true"][1], off, on, on / off))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def make_handler_proxy(box):
    """A handler whose store is whatever `box["store"]` is when a request comes."""
    class Proxy:
        def add(self, *a):
            return box["store"].add(*a)

        def range(self, *a):
            return box["store"].range(*a)
    return make_handler(Proxy())


if __name__ == "__main__":
    main()
