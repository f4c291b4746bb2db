#!/usr/bin/env python3
"""What a live 1 Hz logger costs a small device: runs overland-log on a pipe fed one NMEA
epoch a second (as a receiver's serial port or gpspipe does) for --minutes, and reads its
/proc files every second:

- CPU seconds (utime + stime of /proc/PID/stat), per hour of logging;
- wakeups: context switches (voluntary + involuntary, /proc/PID/status, every thread in
  /proc/PID/task), per second;
- peak RSS (VmHWM);
- bytes written to the disk (write_bytes of /proc/PID/io, what reached the block layer:
  the figure for SD-card wear) per hour, against the journal's own size on disk; and, on
  ext4, the file system's own count (lifetime_write_kbytes: its journal and metadata too),
  which is the logger's alone when --workdir is a file system of its own (a loop mount).

    python3 bench/live.py --bin .build/release --minutes 10 --commit-interval 5 > live-5s.json

The input is bench/gen_nmea.py's generated drive (1 Hz, GGA GSA RMC VTG). Prints one JSON
object; --markdown prints a table row too. Nothing of the user's is touched: settings and
data live in a temporary directory.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14, 15)


def switches(pid: int) -> int:
    """Context switches of every thread of the process, still alive."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def status_kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def write_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    return 0


def fs_written_kib(path: str):
    """The file system's own count of KiB written (ext4's lifetime_write_kbytes: data,
    metadata and its journal), for the file system holding path; None elsewhere. It counts
    every writer of that file system: give --workdir a file system of its own (a loop
    mount) for a figure that is the logger's alone."""
    best = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            mount, kind, source = fields[4], fields[-3], fields[-2]
            if kind == "ext4" and (path == mount or path.startswith(mount.rstrip("/") + "/")):
                if best is None or len(mount) > len(best[0]):
                    best = (mount, source)
    if best is None:
        return None
    try:
        with open(f"/sys/fs/ext4/{os.path.basename(os.path.realpath(best[1]))}/lifetime_write_kbytes") as f:
            return int(f.read())
    except OSError:
        return None


def disk_usage(path: str) -> tuple[int, int]:
    """(apparent bytes, allocated bytes) of every file under path."""
    apparent = allocated = 0
    for directory, _, files in os.walk(path):
        for name in files:
            info = os.lstat(os.path.join(directory, name))
            apparent += info.st_size
            allocated += info.st_blocks * 512
    return apparent, allocated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="directory holding overland-log")
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--commit-interval", default="5", help="overland-log --commit-interval")
    parser.add_argument("--workdir", help="where the journal goes (default: a temporary directory on /tmp's disk)")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()

    epochs = int(args.minutes * 60)
    work = tempfile.mkdtemp(prefix="overland-live-", dir=args.workdir)
    try:
        nmea = os.path.join(work, "drive.nmea")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_nmea.py"), "--epochs", str(epochs + 5), "--out", nmea], check=True)
        # On the disk now, not by the flusher during the measurement.
        with open(nmea, "rb") as f:
            os.fsync(f.fileno())
        env = dict(os.environ, HOME=work, XDG_CONFIG_HOME=work + "/config", XDG_DATA_HOME=work + "/data",
                   XDG_STATE_HOME=work + "/state", OVERLAND_DEVICE_ID="bench")
        for key in ("OVERLAND_JOURNAL", "OVERLAND_URL", "OVERLAND_TOKEN", "OVERLAND_CONFIG"):
            env.pop(key, None)
        journal = os.path.join(work, "journal")
        pacer = subprocess.Popen([sys.executable, os.path.join(HERE, "pace.py"), nmea, "--epochs", str(epochs), "--interval", "1"],
                                 stdout=subprocess.PIPE)
        logger = subprocess.Popen([os.path.join(args.bin, "overland-log"), "--journal", journal,
                                   "--commit-interval", args.commit_interval, "--stats"],
                                  stdin=pacer.stdout, stderr=subprocess.PIPE, env=env)
        pacer.stdout.close()
        pid = logger.pid
        start = time.monotonic()
        # The first sample after start-up, so the rates are the steady state's.
        time.sleep(5)
        first = (time.monotonic(), cpu_seconds(pid), switches(pid), write_bytes(pid))
        fs_first = fs_written_kib(work)
        last = first
        peak_rss = 0
        threads = 0
        while logger.poll() is None:
            try:
                last = (time.monotonic(), cpu_seconds(pid), switches(pid), write_bytes(pid))
                peak_rss = max(peak_rss, status_kib(pid, "VmHWM"))
                threads = max(threads, len(os.listdir(f"/proc/{pid}/task")))
            except (FileNotFoundError, ProcessLookupError):
                break
            time.sleep(1)
        fs_last = fs_written_kib(work)
        stderr = logger.communicate()[1].decode(errors="replace")
        pacer.wait()
        if logger.returncode != 0:
            sys.exit(f"live.py: overland-log exited {logger.returncode}: {stderr}")
        seconds = last[0] - first[0]
        apparent, allocated = disk_usage(journal)
        stats = json.loads(subprocess.run([os.path.join(args.bin, "overland"), "journal", "stats", "--journal", journal, "--json"],
                                          env=env, check=True, capture_output=True).stdout)
        hour = 3600 / seconds
        result = {
            "commit_interval_s": args.commit_interval,
            "epochs": epochs,
            "wall_s": round(time.monotonic() - start, 1),
            "measured_s": round(seconds, 1),
            "points": stats["records"],
            "cpu_s_per_hour": round((last[1] - first[1]) * hour, 2),
            "wakeups_per_s": round((last[2] - first[2]) / seconds, 2),
            "peak_rss_kib": peak_rss,
            "threads": threads,
            "disk_write_bytes_per_hour": round((last[3] - first[3]) * hour),
            "fs_write_bytes_per_hour": round((fs_last - fs_first) * 1024 * hour) if fs_first is not None and fs_last is not None else None,
            "journal_bytes": apparent,
            "journal_allocated_bytes": allocated,
            "journal_bytes_per_hour": round(apparent * 3600 / (time.monotonic() - start)),
            "write_amplification": round((last[3] - first[3]) / max(1, apparent * seconds / (time.monotonic() - start)), 1),
            "filesystem": subprocess.run(["df", "-T", work], capture_output=True, text=True).stdout.splitlines()[-1].split()[1],
        }
        print(json.dumps(result))
        if args.markdown:
            print(f"| {args.commit_interval} s | {result['cpu_s_per_hour']} | {result['wakeups_per_s']} | "
                  f"{peak_rss / 1024:.1f} MiB | {result['disk_write_bytes_per_hour'] / 1024:.0f} KiB | "
                  f"{result['journal_bytes_per_hour'] / 1024:.0f} KiB | {result['write_amplification']}x |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
