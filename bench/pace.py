#!/usr/bin/env python3
"""Replay an NMEA capture in real time: one epoch (the sentences from one GGA to the next)
every --interval seconds on standard output, flushed, like a receiver's serial port.

    python3 bench/pace.py ../shared/samples/drive/drive.nmea --epochs 240 --interval 1 | overland-log ...
"""
import argparse
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    out = sys.stdout.buffer
    epochs, current = [], []
    with open(args.file, "rb") as f:
        for line in f:
            if line[3:6] == b"GGA" and current:
                epochs.append(b"".join(current))
                current = []
                if len(epochs) >= args.epochs:
                    break
            current.append(line)
    if current and len(epochs) < args.epochs:
        epochs.append(b"".join(current))
    start = time.monotonic()
    for index, epoch in enumerate(epochs):
        delay = start + index * args.interval - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        out.write(epoch)
        out.flush()
    # the last epoch's cycle ends at the next tick, as on a live port
    time.sleep(max(0.0, start + len(epochs) * args.interval - time.monotonic()))


if __name__ == "__main__":
    main()
