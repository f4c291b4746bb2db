#!/usr/bin/env python3
"""Generate a long, realistic NMEA 0183 stream for benchmarks.

    python3 bench/gen_nmea.py --epochs 1000000 --seed 1 > drive-1m.nmea

One epoch per second (1 Hz), each GGA + GSA + RMC + VTG, CRLF, valid checksums, in the
u-blox style (5 decimals of minutes, 2 decimals of seconds) so it compresses less well
than the SiRF-style real drive. The vehicle:

- drives legs of city (25-60 km/h), road (60-95 km/h) and highway (95-130 km/h) speed,
  accelerating and braking within +-2.5 m/s2, with stops (traffic lights, 5-90 s; parking,
  2-20 min) where the receiver reports small position wander and near-zero speed;
- turns: heading changes smoothly (road curvature, a random walk) plus corners at stops;
- altitude follows a slow terrain profile with +-1.5 m of noise per fix;
- satellites used (5-16), the PRN list, HDOP/PDOP/VDOP drift slowly;
- position has correlated (random-walk) noise of a few decimetres on top of the path;
- about 1 epoch in 2,000 is missed (no sentences), and short outages (tunnels, 3-40 s)
  report no fix (GGA quality 0, RMC status V, GSA mode 1), as real receivers do.

The clock starts by default at 2024-02-27 21:30:00 UTC: a million epochs (11.6 days) cross
midnight 12 times, a leap day and a month end. Deterministic for a given --seed.
"""
import argparse
import datetime
import math
import random
import struct
import sys

R_EARTH = 6371008.8


def checksum(body: bytes) -> int:
    # XOR of every byte, eight at a time (much faster than a byte loop in Python).
    pad = (-len(body)) % 8
    words = struct.unpack("<%dQ" % ((len(body) + pad) // 8), body + b"\0" * pad)
    x = 0
    for w in words:
        x ^= w
    x ^= x >> 32
    x ^= x >> 16
    x ^= x >> 8
    return x & 0xFF


def sentence(body: str) -> bytes:
    b = body.encode("ascii")
    return b"$" + b + b"*%02X\r\n" % checksum(b)


def ddmm(value: float, degree_digits: int) -> str:
    value = abs(value)
    degrees = int(value)
    minutes = (value - degrees) * 60.0
    text = "%0*d%08.5f" % (degree_digits, degrees, minutes)
    if text[degree_digits:degree_digits + 2] == "60":  # rounding carried into the degrees
        text = "%0*d%08.5f" % (degree_digits, degrees + 1, 0.0)
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", default="2024-02-27T21:30:00")
    parser.add_argument("--lat", type=float, default=48.1372)
    parser.add_argument("--lon", type=float, default=11.5756)
    parser.add_argument("--out", default="-")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    out = sys.stdout.buffer if args.out == "-" else open(args.out, "wb")
    t = datetime.datetime.fromisoformat(args.start).replace(tzinfo=datetime.timezone.utc)
    one = datetime.timedelta(seconds=1)

    lat, lon = math.radians(args.lat), math.radians(args.lon)
    heading = rng.uniform(0, 360)
    heading_rate = 0.0
    speed = 0.0  # m/s
    target = 0.0
    leg_left = 0  # seconds left in this leg
    stop_left = 60  # start parked
    outage_left = 0
    terrain = 520.0
    terrain_slope = 0.0
    noise_n = noise_e = 0.0
    sats = 10
    hdop = 0.9
    prns = sorted(rng.sample(range(1, 33), sats))
    written = 0
    buf = []

    for _ in range(args.epochs):
        # --- motion model -------------------------------------------------------------
        if stop_left > 0:
            stop_left -= 1
            target = 0.0
            if stop_left == 0:
                heading += rng.choice([0, 0, 0, 90, -90, 180, 45, -45]) + rng.gauss(0, 5)
        elif leg_left <= 0:
            kind = rng.random()
            if kind < 0.08:
                stop_left = rng.randint(120, 1200)  # parked
            elif kind < 0.45:
                stop_left = rng.randint(5, 90)  # traffic light, junction
            if kind < 0.5:
                target = rng.uniform(25, 60) / 3.6
            elif kind < 0.8:
                target = rng.uniform(60, 95) / 3.6
            else:
                target = rng.uniform(95, 130) / 3.6
            leg_left = rng.randint(30, 900)
        else:
            leg_left -= 1
            if rng.random() < 0.02:
                target = max(0.0, target + rng.gauss(0, 2.0))
        accel = max(-2.5, min(2.0, (target - speed) * 0.25 + rng.gauss(0, 0.15)))
        speed = max(0.0, speed + accel)
        if speed > 0.5:
            heading_rate = max(-6.0, min(6.0, heading_rate * 0.95 + rng.gauss(0, 0.4 if speed > 20 else 1.2)))
            heading = (heading + heading_rate) % 360.0
        # move along the great circle
        d = speed / R_EARTH
        h = math.radians(heading)
        lat2 = math.asin(math.sin(lat) * math.cos(d) + math.cos(lat) * math.sin(d) * math.cos(h))
        lon = lon + math.atan2(math.sin(h) * math.sin(d) * math.cos(lat), math.cos(d) - math.sin(lat) * math.sin(lat2))
        lat = lat2
        terrain_slope = max(-0.08, min(0.08, terrain_slope + rng.gauss(0, 0.004)))
        terrain = max(-20.0, terrain + terrain_slope * speed)
        # receiver noise: correlated drift of the reported position
        noise_n = noise_n * 0.9 + rng.gauss(0, 0.15)
        noise_e = noise_e * 0.9 + rng.gauss(0, 0.15)
        if rng.random() < 0.01:
            sats = max(5, min(16, sats + rng.choice([-1, 1])))
            prns = sorted(rng.sample(range(1, 33), sats))
        hdop = max(0.5, min(3.5, hdop + rng.gauss(0, 0.02)))

        stamp = t
        t += one
        if rng.random() < 0.0005:
            continue  # a missed epoch: nothing at all this second
        if outage_left == 0 and rng.random() < 0.0002:
            outage_left = rng.randint(3, 40)
        hms = "%02d%02d%02d.00" % (stamp.hour, stamp.minute, stamp.second)
        dmy = "%02d%02d%02d" % (stamp.day, stamp.month, stamp.year % 100)
        if outage_left > 0:
            outage_left -= 1
            buf.append(sentence("GPGGA,%s,,,,,0,00,99.99,,,,,," % hms))
            buf.append(sentence("GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"))
            buf.append(sentence("GPRMC,%s,V,,,,,,,%s,,,N" % (hms, dmy)))
            buf.append(sentence("GPVTG,,,,,,,,,N"))
        else:
            rlat = math.degrees(lat) + noise_n / 111_320.0
            rlon = math.degrees(lon) + noise_e / (111_320.0 * math.cos(lat))
            reported_speed = max(0.0, speed + rng.gauss(0, 0.05)) if speed > 0.3 else abs(rng.gauss(0, 0.08))
            knots = reported_speed * 3600.0 / 1852.0
            course = "%.2f" % (round(heading, 2) % 360.0) if reported_speed > 0.5 else ""
            alt = terrain + rng.gauss(0, 1.5)
            pdop = hdop * 1.6 + 0.1
            vdop = hdop * 1.3
            ns = "N" if rlat >= 0 else "S"
            ew = "E" if rlon >= 0 else "W"
            la, lo = ddmm(rlat, 2), ddmm(rlon, 3)
            prn_fields = ",".join(["%02d" % p for p in prns[:12]] + [""] * (12 - min(12, len(prns))))
            buf.append(sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,%.2f,%.1f,M,47.3,M,," % (hms, la, ns, lo, ew, sats, hdop, alt)))
            buf.append(sentence("GPGSA,A,3,%s,%.2f,%.2f,%.2f" % (prn_fields, pdop, hdop, vdop)))
            buf.append(sentence("GPRMC,%s,A,%s,%s,%s,%s,%.3f,%s,%s,,,A" % (hms, la, ns, lo, ew, knots, course, dmy)))
            buf.append(sentence("GPVTG,%s,T,,M,%.3f,N,%.3f,K,A" % (course, knots, reported_speed * 3.6)))
        written += 1
        if len(buf) >= 4096:
            out.write(b"".join(buf))
            buf.clear()
    out.write(b"".join(buf))
    out.flush()
    print("gen_nmea: %d epochs, %d with output, last %s" % (args.epochs, written, (t - one).isoformat()), file=sys.stderr)


if __name__ == "__main__":
    main()
