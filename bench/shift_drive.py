#!/usr/bin/env python3
"""Repeat an NMEA capture COPIES times, copy k moved k days later (RMC/ZDA dates rewritten,
checksums recomputed), so that a short real drive becomes a long, time-ordered input.

    python3 bench/shift_drive.py ../shared/samples/drive/drive.nmea 20 > drive-x20.nmea
"""
import datetime
import sys


def checksum(body: bytes) -> int:
    x = 0
    for c in body:
        x ^= c
    return x


def main() -> None:
    path, copies = sys.argv[1], int(sys.argv[2])
    lines = open(path, "rb").read().splitlines()
    out = sys.stdout.buffer
    for k in range(copies):
        shifted = []
        for line in lines:
            body = line[1:line.rindex(b"*")] if b"*" in line else line[1:]
            fields = body.split(b",")
            kind = fields[0][2:]
            if k and kind == b"RMC" and len(fields[9]) == 6:
                d = datetime.date(2000 + int(fields[9][4:6]), int(fields[9][2:4]), int(fields[9][0:2]))
                d += datetime.timedelta(days=k)
                fields[9] = b"%02d%02d%02d" % (d.day, d.month, d.year % 100)
            elif k and kind == b"ZDA" and len(fields) > 4 and fields[2]:
                d = datetime.date(int(fields[4]), int(fields[3]), int(fields[2])) + datetime.timedelta(days=k)
                fields[2:5] = [b"%02d" % d.day, b"%02d" % d.month, b"%04d" % d.year]
            body = b",".join(fields)
            shifted.append(b"$" + body + b"*%02X\r\n" % checksum(body))
        out.write(b"".join(shifted))


if __name__ == "__main__":
    main()
