"""What the interop scripts share (scripts/interop/home-assistant, owntracks-recorder):
overland's own binaries in a private home, journals made by overland-log from generated
NMEA, processes started and stopped by pid, loopback ports, the result table.

Nothing here stops or reconfigures a service it did not start: every process is started
by the script, on 127.0.0.1 and an ephemeral port, and stopped by its pid.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def log(text):
    print(text, file=sys.stderr, flush=True)


def free_port():
    """An ephemeral loopback port nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, what, limit=120):
    """Waits until 127.0.0.1:port accepts a connection; fails when `process` ends first."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            sys.exit("%s ended (status %s) before listening on %d" % (what, process.returncode, port))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    sys.exit("%s did not listen on %d within %d s" % (what, port, limit))


class Processes:
    """The processes this script started, each stopped by its own pid."""

    def __init__(self):
        self.started = []

    def start(self, argv, log_path, **kwargs):
        out = open(log_path, "ab")
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True, **kwargs)
        self.started.append(process)
        return process

    def stop(self, process, sig=signal.SIGTERM):
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def stop_all(self):
        for process in reversed(self.started):
            self.stop(process)


def mosquitto(processes, directory):
    """A private mosquitto on 127.0.0.1 and an ephemeral port, with its defaults otherwise
    (no persistence, max_queued_messages 1000): (process, port)."""
    port = free_port()
    config = os.path.join(directory, "mosquitto-%d.conf" % port)
    with open(config, "w") as out:
        out.write("listener %d 127.0.0.1\nallow_anonymous true\nlog_dest stdout\nlog_type error\nlog_type warning\n"
                  "log_type notice\n" % port)
    process = processes.start(["/usr/sbin/mosquitto", "-c", config], os.path.join(directory, "mosquitto.log"))
    wait_for_port(port, process, "mosquitto")
    return process, port


def binaries(path):
    """overland's binaries at `path` (built with `swift build` when absent)."""
    path = os.path.abspath(path)
    if not all(os.access(os.path.join(path, tool), os.X_OK) for tool in ("overland", "overland-sync", "overland-log")):
        log("building overland (swift build)...")
        subprocess.run(["swift", "build"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        path = os.path.join(ROOT, ".build", "debug")
    return path


class Overland:
    """overland's commands in a private home (`work`): settings, journals and state there."""

    def __init__(self, bin_dir, work):
        self.bin = bin_dir
        self.work = work
        self.env = dict(os.environ, HOME=work, XDG_CONFIG_HOME=work + "/config", XDG_DATA_HOME=work + "/data",
                        XDG_STATE_HOME=work + "/state")
        for key in list(self.env):
            if key.startswith("OVERLAND_"):
                del self.env[key]

    def run(self, tool, args, stdin=None, check=True):
        done = subprocess.run([os.path.join(self.bin, tool)] + args, env=self.env, input=stdin, capture_output=True, text=True)
        if check and done.returncode != 0:
            sys.exit("%s %s exited %d: %s" % (tool, " ".join(args), done.returncode, done.stderr.strip()))
        return done

    def overland(self, *args, stdin=None, check=True):
        return self.run("overland", list(args), stdin=stdin, check=check)

    def journal(self, name, captures):
        """A journal `name` logged from `captures`: (start, epochs, seed) each, in order."""
        path = os.path.join(self.work, name)
        for start, epochs, seed in captures:
            nmea = os.path.join(self.work, "capture-%s-%d.nmea" % (start.replace(":", ""), seed))
            with open(nmea, "w") as out:
                subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_nmea.py"), "--epochs", str(epochs),
                                "--seed", str(seed), "--start", start], stdout=out, check=True)
            self.run("overland-log", [nmea, "--journal", path])
        return path

    def points(self, journal):
        """The journal's points: [(tst, lat, lon)] in journal order."""
        export = self.run("overland", ["export", "--journal", journal, "--format", "csv"]).stdout.splitlines()
        header = export[0].split(",")
        t, a, o = header.index("timestamp"), header.index("latitude"), header.index("longitude")
        points = []
        for line in export[1:]:
            fields = line.split(",")
            points.append((iso_seconds(fields[t]), float(fields[a]), float(fields[o])))
        return points

    def sync(self, journal, timeout=3600):
        started = time.monotonic()
        done = subprocess.run([os.path.join(self.bin, "overland-sync"), "--journal", journal, "--now", "--verbose"],
                              env=self.env, capture_output=True, text=True, timeout=timeout)
        return done.returncode, time.monotonic() - started, done.stderr

    def refused(self, journal):
        status = json.loads(self.overland("status", "--journal", journal, "--json").stdout)
        return sum(d.get("refused", 0) or 0 for d in status.get("destinations", []))


def iso_seconds(text):
    import calendar
    return calendar.timegm(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S"))


def compare(sent, held):
    """(held points of ours, missing, duplicates, lines): `sent` [(tst, lat, lon)] against
    what a receiver holds, `held` [(tst or None, lat, lon)]; positions within 1e-6 degrees,
    times (where the receiver has them) equal."""
    def key(lat, lon):
        return (round(lat * 1e6), round(lon * 1e6))
    counts = {}
    for tst, lat, lon in held:
        counts.setdefault(key(lat, lon), []).append((tst, lat, lon))
    found = 0
    duplicates = 0
    for tst, lat, lon in sent:
        # Within 1e-6 degrees, as overland compares: the neighbouring cells too (a receiver
        # that keeps 6 decimals rounds the last one either way).
        a, o = key(lat, lon)
        near = [h for da in (-1, 0, 1) for do in (-1, 0, 1) for h in counts.get((a + da, o + do), [])
                if abs(h[1] - lat) <= 1.5e-6 and abs(h[2] - lon) <= 1.5e-6]
        matching = [h for h in near if h[0] is None or h[0] == tst]
        if matching:
            found += 1
            duplicates += len(matching) - 1
    return found, len(sent) - found, duplicates, len(held)


def table(rows):
    print("| scenario | runs: exit codes | seconds | points | at the receiver | missing | duplicates | refused | result |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for row in rows:
        print("| %(scenario)s | %(codes)s | %(seconds).1f | %(points)d | %(found)d | %(missing)d | %(duplicates)d | %(refused)d | %(result)s |"
              % row)
    sys.stdout.flush()


def workdir(prefix):
    base = os.path.join(ROOT, ".build", "interop")
    os.makedirs(base, exist_ok=True)
    return tempfile.mkdtemp(prefix=prefix, dir=base)


def keep_or_remove(path, keep):
    if keep:
        log("kept: " + path)
    else:
        shutil.rmtree(path, ignore_errors=True)
