#!/usr/bin/env python3
"""Makes the journal format's conformance vectors (journal-format.md section 14).

    python3 Tests/Conformance/make_vectors.py            rewrites Tests/Conformance/vectors/

Each vector is a directory:

    journal/        the journal: manifest.json, segments/, maybe cursor.json
    records.jsonl   the records a conforming reader passes on, in order, as stored
    expected.json   what `overland journal verify --json` prints for it (one line)
    README          one line: what the vector is about

Everything is built here from the format's rules, with the standard library only, and is
deterministic (fixed journal ids, times and records). The expected results are not read
back from any reader: they follow from how each journal was built (which members were
damaged, where the tail starts), so that both readers are checked against a third account.
Offsets are computed from the bytes built, so a zlib that deflates differently yields
different but still consistent vectors.
"""

import json
import os
import shutil
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "vectors")

JOURNAL_ID = "6f7665726c616e642d766563746f7221"   # "overland-vector!"
FOREIGN_ID = "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5"
MTIME = 1795671432                              # 2026-11-24T04:17:12Z
TWO_53 = 1 << 53


# ---------------------------------------------------------------------------- records

def record(n):
    """A small Overland location Feature, compact, deterministic."""
    lon = -122.6 + n * 0.0001
    lat = 45.5 + n * 0.00005
    seconds = 1795671432 + n
    day, rest = divmod(seconds, 86400)
    hh, rest = divmod(rest, 3600)
    mm, ss = divmod(rest, 60)
    stamp = "2026-11-%02dT%02d:%02d:%02dZ" % (24 + day - 20781, hh, mm, ss)
    return ('{"type":"Feature","geometry":{"type":"Point","coordinates":[%.4f,%.5f]},'
            '"properties":{"timestamp":"%s","horizontal_accuracy":5,"speed":%d,"device_id":"van"}}'
            % (lon, lat, stamp, n % 30)).encode()


# ---------------------------------------------------------------------------- members

def header(kind, size, first, count, jid, mtime=MTIME, xfl=0, os_byte=255):
    head = b"\x1f\x8b\x08\x06" + struct.pack("<I", mtime) + bytes([xfl, os_byte])
    head += struct.pack("<H", 40) + b"OJ" + struct.pack("<H", 36)
    head += bytes([1, kind]) + b"\0\0" + struct.pack("<IQI", size, first, count) + bytes.fromhex(jid)
    return head + struct.pack("<H", zlib.crc32(head) & 0xFFFF)


def deflate(data, level):
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def records_member(first, lines, jid=JOURNAL_ID, level=4, count=None, **fields):
    payload = b"".join(line + b"\n" for line in lines)
    body = deflate(payload, level)
    size = 54 + len(body) + 8
    count = len(lines) if count is None else count
    return header(1, size, first, count, jid, **fields) + body + struct.pack("<II", zlib.crc32(payload), len(payload))


def seal_member(name, count, jid=JOURNAL_ID):
    return header(2, 64, name, count, jid) + b"\x03\x00" + bytes(8)


def progress_record(name, base, next_value, jid=JOURNAL_ID):
    """state/progress-NAME (section 9): 76 bytes, the CRC-32 of the first 72 at the end."""
    body = b"olprog1\n" + bytes.fromhex(jid) + struct.pack("<QQ", base, next_value) + name.encode().ljust(32, b"\0")
    return body + struct.pack("<I", zlib.crc32(body))


def flip(data, index, bit=0):
    return data[:index] + bytes([data[index] ^ (1 << bit)]) + data[index + 1:]


# ---------------------------------------------------------------------------- vectors

class Segment:
    """A segment file as a list of pieces, each known to be intact, damage or tail."""

    def __init__(self, name):
        self.name = name
        self.pieces = []     # (bytes, first, lines, outcome); outcome None = intact, else a code or "tail"

    def add(self, data, first=None, lines=(), outcome=None):
        self.pieces.append((data, first, list(lines), outcome))
        return self

    def good(self, first, lines, **fields):
        return self.add(records_member(first, lines, **fields), first, lines)

    def sealed(self):
        count = sum(len(lines) for data, first, lines, outcome in self.pieces
                    if first is not None and outcome in (None, "bad-data", "bad-record"))
        return self.add(seal_member(self.name, count), outcome="seal")

    @property
    def file_name(self):
        return "%020d.jsonl.gz" % self.name

    @property
    def data(self):
        return b"".join(piece[0] for piece in self.pieces)


class Vector:
    def __init__(self, name, about, jid=JOURNAL_ID):
        self.name = name
        self.about = about
        self.jid = jid
        self.manifest = {"format": "overland-journal", "version": 1, "journal_id": jid,
                         "device_id": "van", "created": "2026-11-24T04:17:12Z"}
        self.segments = []
        self.cursor = None          # bytes of cursor.json, or None
        self.cursor_expect = {"next": 0}
        self.named = {}             # NAME -> expected entry of cursors/NAME.json ({"next": N} or {"error": CODE})
        self.extra = {}             # path (relative to the vector) -> bytes, or ("link", target)
        self.refused = None
        self.not_a_journal = False  # True: no JSON at all (expected.json empty), exit 66 (section 14)

    def segment(self, name):
        segment = Segment(name)
        self.segments.append(segment)
        return segment

    def set_cursor(self, next_value, jid=None):
        self.cursor = b'{"journal_id":"%s","next":%d}\n' % ((jid or self.jid).encode(), next_value)
        self.cursor_expect = {"next": next_value}

    def set_named(self, name, next_value=None, jid=None, text=None, expect=None):
        """cursors/NAME.json (section 9): a valid named cursor at `next_value`, or `text` as
        the file's bytes (or ("link", target)) with the `expect`ed entry."""
        if text is None:
            text = b'{"journal_id":"%s","next":%d,"name":"%s"}\n' % ((jid or self.jid).encode(), next_value, name.encode())
        self.extra["journal/cursors/%s.json" % name] = text
        self.named[name] = expect if expect is not None else {"next": next_value}

    def expected(self):
        if self.not_a_journal:
            return None, []
        if self.refused:
            return {"refused": self.refused}, []
        ordered = sorted(self.segments, key=lambda s: s.name)
        records, damaged, tail = [], [], None
        for index, segment in enumerate(ordered):
            limit = ordered[index + 1].name if index + 1 < len(ordered) else None
            offset = 0
            for data, first, lines, outcome in segment.pieces:
                if outcome is None:
                    for number, line in enumerate(lines, start=first):
                        if limit is None or number < limit:
                            records.append((number, line))
                elif outcome == "tail":
                    if tail is None:
                        tail = {"file": "segments/" + segment.file_name, "offset": offset, "length": 0}
                    tail["length"] += len(data)
                elif outcome != "seal":
                    damaged.append({"file": "segments/" + segment.file_name, "offset": offset,
                                    "length": len(data), "reason": outcome})
                offset += len(data)
        def entry(expect):
            if "error" in expect:
                return dict(expect)
            start = expect["next"]
            result = {"next": start, "unsent": sum(1 for number, _ in records if number >= start)}
            if "progress" in expect:
                result["progress"] = expect["progress"]
            return result

        # One reader: cursor.json as "default". Named cursors: cursor.json (the floor) under
        # its file name, then each reader by name (section 14).
        cursors = {("cursor.json" if self.named else "default"): entry(self.cursor_expect)}
        for name in sorted(self.named):
            cursors[name] = entry(self.named[name])
        summary = {"segments": len(ordered), "records": len(records), "damaged": damaged,
                   "cursors": cursors, "tail": tail}
        return summary, records

    def write(self, root):
        directory = os.path.join(root, self.name)
        journal = os.path.join(directory, "journal")
        os.makedirs(os.path.join(journal, "segments"))
        manifest = self.manifest if isinstance(self.manifest, bytes) else \
            json.dumps(self.manifest, separators=(",", ":")).encode() + b"\n"
        write(os.path.join(journal, "manifest.json"), manifest)
        for segment in self.segments:
            write(os.path.join(journal, "segments", segment.file_name), segment.data)
        if self.cursor is not None:
            write(os.path.join(journal, "cursor.json"), self.cursor)
        for path, content in sorted(self.extra.items()):
            full = os.path.join(directory, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            elif os.path.lexists(full):
                os.remove(full)
            if content == ("dir",):
                os.makedirs(full)
                write(os.path.join(full, "keep"), b"")  # git keeps no empty directory
            elif isinstance(content, tuple):
                os.symlink(content[1], full)
            else:
                write(full, content)
        summary, records = self.expected()
        write(os.path.join(directory, "expected.json"), b"" if summary is None else (json.dumps(summary) + "\n").encode())
        write(os.path.join(directory, "records.jsonl"), b"".join(line + b"\n" for _, line in records))
        write(os.path.join(directory, "README"), (self.about + "\n").encode())


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, 0o644)


def lines(start, count):
    return [record(n) for n in range(start, start + count)]


def vectors():
    made = []

    def vector(name, about, **kwargs):
        v = Vector(name, about, **kwargs)
        made.append(v)
        return v

    vector("empty", "a journal with no segment: nothing to read, cursor 0")

    v = vector("intact", "two sealed segments and an active one, half synced")
    v.segment(0).good(0, lines(0, 4), level=9).good(4, lines(4, 3), level=9).sealed()
    v.segment(7).good(7, lines(7, 5), level=9).sealed()
    v.segment(12).good(12, lines(12, 2)).good(14, lines(14, 3))
    v.set_cursor(9)

    v = vector("header-variants", "valid members with XFL 2, OS 3 and MTIME 0; records with whitespace, "
               "duplicate keys, escapes, a surrogate pair and exactly 65,536 bytes")
    odd = [b'{ "type" : "Feature" ,\t"properties" : { } }', b'{"a":1,"a":2}',
           b'{"s":"\\u00e9\\ud83d\\ude00 \xc3\xa9 \\/ \\n","n":-0.5e-3,"big":1e400,"l":[true,false,null]}',
           b'{"pad":"' + b"x" * (65536 - 10) + b'"}']
    assert len(odd[3]) == 65536
    v.segment(0).good(0, lines(0, 2), xfl=2, os_byte=3).good(2, odd, mtime=0).good(6, lines(6, 1), xfl=4, os_byte=0)
    v.set_cursor(0)

    v = vector("killed-mid-commit", "the logger was killed while appending: the last member is cut short")
    s = v.segment(0).good(0, lines(0, 3)).good(3, lines(3, 3))
    cut = records_member(6, lines(6, 4))
    s.add(cut[:len(cut) // 2], outcome="tail")

    v = vector("killed-mid-header", "killed after 20 bytes of a member header reached the disk")
    s = v.segment(5).good(5, lines(5, 2))
    s.add(records_member(7, lines(7, 1))[:20], outcome="tail")
    v.set_cursor(5)

    v = vector("zero-filled-tail", "a FAT file system allocated space that was never written: zeros after the last member")
    v.segment(0).good(0, lines(0, 3)).good(3, lines(3, 1)).add(bytes(4096), outcome="tail")

    v = vector("torn-member", "a member whose header reached the disk but not its data (zeros, full size): "
               "in the newest segment that is the torn tail")
    whole = records_member(4, lines(4, 3))
    v.segment(0).good(0, lines(0, 4)).add(whole[:54] + bytes(len(whole) - 54), outcome="tail")

    v = vector("torn-member-older", "the same torn member in a segment that is not the newest: damage")
    whole = records_member(4, lines(4, 3))
    v.segment(0).good(0, lines(0, 4)).add(whole[:54] + bytes(len(whole) - 54), outcome="bad-data")
    v.segment(7).good(7, lines(7, 2))

    v = vector("bitflip-active", "one bit flipped in the deflate data of the middle member of the active segment")
    m = records_member(3, lines(3, 3))
    v.segment(0).good(0, lines(0, 3)).add(flip(m, 70), 3, lines(3, 3), "bad-data").good(6, lines(6, 3))
    v.set_cursor(2)

    v = vector("bitflip-active-last", "one bit flipped in the last member of the active segment: "
               "a complete member that does not check, after the last intact one, is the torn tail")
    m = records_member(3, lines(3, 3))
    v.segment(0).good(0, lines(0, 3)).add(flip(m, 70), outcome="tail")

    v = vector("bitflip-sealed", "one bit flipped in the deflate data of a sealed segment's first member: "
               "that member is damage, the seal still counts it and holds")
    m = records_member(0, lines(0, 4), level=9)
    v.segment(0).add(flip(m, 80), 0, lines(0, 4), "bad-data").good(4, lines(4, 4), level=9).sealed()
    v.segment(8).good(8, lines(8, 2))
    v.set_cursor(0)

    v = vector("bitflip-sealed-header", "one bit flipped in a member header of a sealed segment: the member is no "
               "longer framed (bad-header up to the next member), so the seal's count is wrong too (bad-seal)")
    m = records_member(3, lines(3, 3), level=9)
    s = v.segment(0).good(0, lines(0, 3), level=9).add(flip(m, 30), 3, lines(3, 3), "bad-header")
    s.good(6, lines(6, 3), level=9)
    s.add(seal_member(0, 9), outcome="bad-seal")
    v.segment(9).good(9, lines(9, 1))

    v = vector("bitflip-record", "a member that inflates and checks but holds a line that is not a record "
               "(NaN): bad-record")
    v.segment(0).good(0, lines(0, 2)).add(records_member(2, [b'{"speed":NaN}']), 2, [b""], "bad-record").good(3, lines(3, 1))

    v = vector("record-rules", "members each holding one line that breaks section 3: a lone surrogate, bad UTF-8, "
               "65,537 bytes, an array, trailing text, nesting 65 deep; and one nested exactly 64 deep")
    s = v.segment(0).good(0, lines(0, 1))
    bad = [b'{"s":"\\ud800"}', b'{"s":"\xc0\xaf"}', b'{"pad":"' + b"x" * (65537 - 10) + b'"}', b'[1,2]',
           b'{"a":1} x', b'{"a":' + b"[" * 64 + b"]" * 64 + b"}"]
    first = 1
    for line in bad:
        s.add(records_member(first, [line]), first, [line], "bad-record")
        first += 1
    deep = b'{"a":' + b"[" * 63 + b"]" * 63 + b"}"
    s.good(first, [deep]).good(first + 1, lines(first + 1, 1))

    v = vector("spliced-foreign", "a member of another journal spliced between two members of a sealed segment")
    s = v.segment(0).good(0, lines(0, 3), level=9)
    s.add(records_member(3, lines(100, 3), jid=FOREIGN_ID), outcome="foreign-member")
    s.good(3, lines(3, 3), level=9).sealed()
    v.segment(6).good(6, lines(6, 1))

    v = vector("foreign-segment", "a whole segment file copied from another journal: every member is damage")
    v.segment(0).good(0, lines(0, 2), level=9).sealed()
    v.segment(2).add(records_member(2, lines(200, 2), jid=FOREIGN_ID) + records_member(4, lines(202, 2), jid=FOREIGN_ID),
                     outcome="foreign-member").add(seal_member(2, 4, jid=FOREIGN_ID), outcome="foreign-member")
    v.segment(6).good(6, lines(6, 2))
    # The two foreign members and the foreign seal: no header of this journal in between,
    # so one range from the first to the end of the file.
    s = v.segments[1]
    s.pieces = [(s.data, None, [], "foreign-member")]

    v = vector("foreign-segment-newest", "a segment file copied from another journal is the newest: "
               "another journal's member is never a torn write, so it is damage, not a tail")
    v.segment(0).good(0, lines(0, 2), level=9).sealed()
    v.segment(9000).add(records_member(9000, lines(300, 2), jid=FOREIGN_ID, level=9)
                        + seal_member(9000, 2, jid=FOREIGN_ID), outcome="foreign-member")

    v = vector("spliced-foreign-active-end", "a member of another journal appended to the active segment: damage")
    v.segment(0).good(0, lines(0, 3)).add(records_member(3, lines(400, 2), jid=FOREIGN_ID), outcome="foreign-member")

    v = vector("out-of-sequence", "a member numbered below the end of the one before it")
    s = v.segment(0).good(0, lines(0, 4))
    s.add(records_member(2, lines(2, 2)), outcome="out-of-sequence").good(4, lines(4, 2))

    v = vector("below-segment-name", "a member numbered below its segment's name")
    s = v.segment(10).add(records_member(8, lines(8, 2)), outcome="out-of-sequence").good(10, lines(10, 2))

    v = vector("overlapping-segments", "segment 0 holds 0 to 11 but segment 8 exists: records 8 to 11 come from "
               "segment 8 only (the later segment takes precedence)")
    v.segment(0).good(0, lines(0, 12), level=9).sealed()
    v.segment(8).good(8, [record(n) + b" " for n in range(8, 14)])
    v.set_cursor(10)

    v = vector("gaps", "sequence numbers with gaps, between segments and inside one: unsent counts records, "
               "not numbers")
    v.segment(0).good(0, lines(0, 5), level=9).good(20, lines(20, 5), level=9).sealed()
    v.segment(100).good(100, lines(100, 3)).good(1000, lines(1000, 2))
    v.set_cursor(22)

    v = vector("cursor-past-end", "the cursor is past the newest record (power loss after a sync)")
    v.segment(0).good(0, lines(0, 4))
    v.set_cursor(1000)

    v = vector("cursor-missing", "no cursor.json: next is 0, everything is unsent")
    v.segment(0).good(0, lines(0, 3))

    v = vector("cursor-2-53", "the cursor at 2^53 exactly (the largest allowed) after records numbered up to 2^53 - 1")
    v.segment(TWO_53 - 4).good(TWO_53 - 4, lines(0, 4)).sealed()
    v.set_cursor(TWO_53)

    v = vector("sequence-over-2-53", "a member numbered from 2^53 - 1 with two records (one would be numbered 2^53): "
               "bad-header, skipped; the member before it is read")
    s = v.segment(TWO_53 - 10).good(TWO_53 - 10, lines(0, 4))
    s.add(records_member(TWO_53 - 1, lines(10, 2)), outcome="bad-header").good(TWO_53 - 1, lines(12, 1))

    for name, text, about in [
        ("cursor-not-json", b'{"journal_id":"%s","next":5' % JOURNAL_ID.encode(), "cut JSON"),
        ("cursor-not-object", b'[5]', "a JSON array"),
        ("cursor-negative", b'{"journal_id":"%s","next":-1}' % JOURNAL_ID.encode(), "a negative next"),
        ("cursor-fraction", b'{"journal_id":"%s","next":2.0}' % JOURNAL_ID.encode(), "next with a fraction"),
        ("cursor-exponent", b'{"journal_id":"%s","next":2e0}' % JOURNAL_ID.encode(), "next with an exponent"),
        ("cursor-string", b'{"journal_id":"%s","next":"2"}' % JOURNAL_ID.encode(), "next as a string"),
        ("cursor-leading-zero", b'{"journal_id":"%s","next":02}' % JOURNAL_ID.encode(), "next with a leading zero"),
        ("cursor-too-large", b'{"journal_id":"%s","next":9007199254740993}' % JOURNAL_ID.encode(),
         "next = 2^53 + 1, which a double would round to 2^53"),
        ("cursor-no-next", b'{"journal_id":"%s"}' % JOURNAL_ID.encode(), "no next"),
        ("cursor-no-journal-id", b'{"next":2}', "no journal_id"),
        ("cursor-bad-journal-id", b'{"journal_id":"xyz","next":2}', "journal_id not 32 hex digits"),
        ("cursor-oversized", b'{"journal_id":"%s","next":2,"pad":"%s"}' % (JOURNAL_ID.encode(), b"x" * 1024),
         "a cursor over 1,024 bytes"),
    ]:
        v = vector(name, "cursor malformed: " + about + "; the segments are read, the cursor is refused")
        v.segment(0).good(0, lines(0, 3))
        v.cursor = text
        v.cursor_expect = {"error": "cursor-invalid"}

    v = vector("cursor-foreign", "a well-formed cursor of another journal: refused")
    v.segment(0).good(0, lines(0, 3))
    v.set_cursor(1, jid=FOREIGN_ID)
    v.cursor_expect = {"error": "cursor-foreign"}

    v = vector("cursor-upper-case", "a cursor whose journal_id is written in upper case and with spaces: valid")
    v.segment(0).good(0, lines(0, 3))
    v.cursor = b'{ "next" : 1 , "journal_id" : "%s" , "note" : [1, {"next": 99}] }\n' % JOURNAL_ID.upper().encode()
    v.cursor_expect = {"next": 1}

    v = vector("cursor-symlink", "cursor.json is a symbolic link (to a valid cursor outside the journal): refused")
    v.segment(0).good(0, lines(0, 3))
    v.extra["elsewhere-cursor.json"] = b'{"journal_id":"%s","next":1}\n' % JOURNAL_ID.encode()
    v.extra["journal/cursor.json"] = ("link", "../elsewhere-cursor.json")
    v.cursor_expect = {"error": "cursor-not-file"}

    v = vector("moved-journal", "a journal made by `overland journal move` on a stick: moved_from in the manifest, "
               "members re-stamped with their old MTIME, read as any other")
    v.manifest["moved_from"] = ["e9501546f7ba313fd63ef076df73eb52"]
    v.segment(0).good(0, lines(5597, 3), level=9, mtime=MTIME - 86400).good(3, lines(5600, 2), level=9).sealed()
    v.segment(5).good(5, lines(5605, 4), level=9).sealed()
    v.set_cursor(3)

    v = vector("seal-at-2-53", "a seal member numbered 2^53 with a count of 2 (section 5 rule 2 allows a first "
               "sequence number of 2^53 and bounds first + count for records members only): framed, so it fails "
               "rule 6 as bad-seal (not bad-header); the records before and after it are read")
    v.segment(0).good(0, lines(0, 2), level=9).add(seal_member(TWO_53, 2), outcome="bad-seal")
    v.segment(2).good(2, lines(2, 1))

    # Issue 22: what an independent reader found the document silent on, decided there.
    v = vector("records-count-0", "a records member whose header says 0 records (rule 2: at least 1) in a "
               "segment that is not the newest: bad-header, up to the next member; the rest is read")
    v.segment(0).good(0, lines(0, 2)).add(records_member(2, lines(2, 1), count=0), outcome="bad-header").good(2, lines(2, 1))
    v.segment(3).good(3, lines(3, 1))

    big = records_member(2, lines(2, 1))
    big = header(1, 3 << 20, 2, 1, JOURNAL_ID) + big[54:]
    v = vector("size-out-of-range-past-end", "a member header whose size (3 MiB) is out of range and also runs past "
               "the end of its segment, which is not the newest: bad-header (rule 2's ranges come before the file's "
               "length), not truncated")
    v.segment(0).good(0, lines(0, 2)).add(big, outcome="bad-header")
    v.segment(3).good(3, lines(3, 1))

    seal = bytearray(seal_member(0, 2))
    seal[52] ^= 0xFF
    v = vector("seal-bad-crc", "a seal member whose header CRC16 is wrong, in a segment that is not the newest: "
               "not framed, so bad-header (rule 1), not bad-seal")
    v.segment(0).good(0, lines(0, 2), level=9).add(bytes(seal), outcome="bad-header")
    v.segment(2).good(2, lines(2, 1))

    v = vector("seal-then-zeros-older", "a valid seal followed by 512 zero bytes, in a segment that is not the "
               "newest: the seal is not the last thing in the file (bad-seal) and the zeros are zero-filled damage")
    v.segment(0).good(0, lines(0, 2), level=9).add(seal_member(0, 2), outcome="bad-seal").add(bytes(512), outcome="zero-filled")
    v.segment(2).good(2, lines(2, 1))

    v = vector("seal-then-zeros", "a valid seal followed by 512 zero bytes in the newest segment (a FAT file system "
               "that allocated more): not sealed; the seal and the zeros are the torn tail, no damage")
    v.segment(0).good(0, lines(0, 2), level=9).add(seal_member(0, 2), outcome="tail").add(bytes(512), outcome="tail")

    v = vector("foreign-then-torn-tail", "the newest segment: a member of another journal, then an intact member, "
               "then a member cut short: the foreign member is damage; what follows the last intact member is "
               "still the torn tail")
    s = v.segment(0).good(0, lines(0, 2)).add(records_member(2, lines(400, 2), jid=FOREIGN_ID), outcome="foreign-member")
    s.good(2, lines(2, 2)).add(records_member(4, lines(4, 2))[:40], outcome="tail")

    v = vector("cursor-repeated-key", "cursor.json with next written twice (the same key, once escaped): "
               "cursor-invalid, whichever value a reader would keep")
    v.segment(0).good(0, lines(0, 4))
    v.cursor = b'{"journal_id":"%s","next":1,"n\\u0065xt":3}\n' % JOURNAL_ID.encode()
    v.cursor_expect = {"error": "cursor-invalid"}

    # The manifest (section 2, issue 22): which keys a reader requires and how it checks
    # them, and that it is checked before anything else is refused. A manifest a reader
    # does not accept makes the directory not a journal: exit 66, no JSON.
    good = '{"format":"overland-journal","version":1,"journal_id":"%s","device_id":"van","created":"2026-11-24T04:17:12Z"}' % JOURNAL_ID
    for name, text, about, accepted in [
        ("manifest-version-fraction", good.replace('"version":1', '"version":1.0'), "version written 1.0", False),
        ("manifest-version-exponent", good.replace('"version":1', '"version":1e0'), "version written 1e0", False),
        ("manifest-version-true", good.replace('"version":1', '"version":true'), "version true", False),
        ("manifest-version-string", good.replace('"version":1', '"version":"1"'), "version as a string", False),
        ("manifest-version-2", good.replace('"version":1', '"version":2'), "a newer version", False),
        ("manifest-no-created", good.replace(',"created":"2026-11-24T04:17:12Z"', ''), "no created", False),
        ("manifest-created-not-a-date", good.replace("2026-11-24", "2026-02-30"), "created on 30 February", False),
        ("manifest-created-fraction", good.replace("12Z", "12.5Z"), "created with a fraction of a second", False),
        ("manifest-created-offset", good.replace("12Z", "12+00:00"), "created with an offset instead of Z", False),
        ("manifest-created-hour-24", good.replace("04:17", "24:17"), "created at hour 24", False),
        ("manifest-no-journal-id", good.replace('"journal_id":"%s",' % JOURNAL_ID, ''), "no journal_id", False),
        ("manifest-repeated-key", good.replace('"version":1', '"version":1,"version":2'), "version twice", False),
        ("manifest-no-device-id", good.replace(',"device_id":"van"', ''), "no device_id (informational: not required)", True),
        ("manifest-device-id-number", good.replace('"device_id":"van"', '"device_id":7'),
         "device_id a number (informational: not checked)", True),
        ("manifest-upper-case-id", good.replace(JOURNAL_ID, JOURNAL_ID.upper()), "journal_id in upper case (either case is read)", True),
    ]:
        v = vector(name, "manifest.json: %s: %s" % (about, "read as usual" if accepted else "not a journal (exit 66, no JSON)"))
        v.manifest = (text + "\n").encode()
        v.segment(0).good(0, lines(0, 2))
        v.not_a_journal = not accepted

    # Issue 33: unknown keys may hold any value a record may (section 3's rules: RFC 8259,
    # paired surrogate escapes, numbers of any magnitude, nesting at most 64 with the file's
    # own object counting as 1), so that a later minor version adding a nested key does not
    # lock this one out; past those rules the manifest is not accepted.
    def nested(depth):
        return "[" * depth + "]" * depth
    for name, extra, about, accepted in [
        ("manifest-unknown-nested", ',"later":{"a":[[[[{"b":[1,2,{"c":null}]}]]]]}', "an unknown key nested 8 deep", True),
        ("manifest-unknown-number", ',"later":1e400,"too":-0.5e-999', "unknown keys holding 1e400 and -0.5e-999", True),
        ("manifest-unknown-depth-64", ',"later":' + nested(63), "an unknown key nested to depth 64 (the object is 1)", True),
        ("manifest-unknown-depth-65", ',"later":' + nested(64), "an unknown key nested to depth 65", False),
        ("manifest-unknown-depth-1900", ',"later":' + nested(1900), "an unknown key nested 1,900 deep", False),
        ("manifest-unknown-lone-surrogate", ',"later":"\\ud800"', "an unknown key holding a lone surrogate escape", False),
    ]:
        v = vector(name, "manifest.json: %s: %s" % (about, "read as usual" if accepted else "not a journal (exit 66, no JSON)"))
        v.manifest = (good[:-1] + extra + "}\n").encode()
        v.segment(0).good(0, lines(0, 2))
        v.not_a_journal = not accepted

    for name, extra, about, accepted in [
        ("cursor-unknown-nested", b',"later":{"a":[[[[[[1.5,1e400,{"next":99}]]]]]]}', "an unknown key nested 9 deep with "
         "a fraction, 1e400 and a next of its own", True),
        ("cursor-unknown-depth-65", b',"later":' + nested(64).encode(), "an unknown key nested to depth 65", False),
        ("cursor-unknown-lone-surrogate", b',"later":"\\udc00"', "an unknown key holding a lone low surrogate escape", False),
    ]:
        v = vector(name, "cursor.json: %s: %s" % (about, "valid" if accepted else "cursor-invalid"))
        v.segment(0).good(0, lines(0, 3))
        v.cursor = b'{"journal_id":"%s","next":1%s}\n' % (JOURNAL_ID.encode(), extra)
        v.cursor_expect = {"next": 1} if accepted else {"error": "cursor-invalid"}

    v = vector("seal-twice-newest", "the newest segment ends with two valid-looking seals: its last member is a valid "
               "seal, so it is sealed (no torn tail); the first seal is not the last member (bad-seal)")
    v.segment(0).good(0, lines(0, 2), level=9).add(seal_member(0, 2), outcome="bad-seal").add(seal_member(0, 2), outcome="seal")

    v = vector("state-file", "state is a regular file, not a directory: no state file and no progress record "
               "(section 9: what is not there is not read), the journal read as usual")
    v.segment(0).good(0, lines(0, 3))
    v.set_cursor(1)
    v.cursor_expect = {"next": 1}
    v.extra["journal/state"] = b"not a directory\n"

    garbage = bytes(range(1, 200))
    foreign = records_member(2, lines(400, 2), jid=FOREIGN_ID)
    v = vector("foreign-after-garbage", "the newest segment: an intact member, then garbage and a member of another "
               "journal: the search for the next member looks for this journal's only, so the garbage and the foreign "
               "member are one bad-header range after the last intact member: the torn tail (an appender cuts it and "
               "keeps it in damaged/)")
    v.segment(0).good(0, lines(0, 2)).add(garbage + foreign, outcome="tail")

    v = vector("foreign-after-zeros", "the same after zeros, in a segment that is not the newest: one bad-header "
               "range (zeros and the foreign member together are not all zero), damage")
    v.segment(0).good(0, lines(0, 2), level=9).add(bytes(300) + foreign, outcome="bad-header")
    v.segment(2).good(2, lines(2, 1))

    v = vector("manifest-checked-first", "a manifest of a newer version and a segments/ that is a symbolic link: the "
               "manifest is checked first (exit 66, no JSON), before anything is refused")
    v.manifest = (good.replace('"version":1', '"version":2') + "\n").encode()
    v.extra["elsewhere/keep"] = b""
    v.extra["journal/segments"] = ("link", "../elsewhere")
    v.not_a_journal = True

    v = vector("segments-file", "segments is a regular file: the journal is refused (not-a-file), like cursors")
    v.extra["journal/segments"] = b"not a directory\n"
    v.refused = {"file": "segments", "reason": "not-a-file"}

    v = vector("seal-not-last", "a seal followed by a records member in a segment that is not the newest: "
               "the seal is damage (bad-seal), the records after it are read")
    s = v.segment(0).good(0, lines(0, 2), level=9).add(seal_member(0, 2), outcome="bad-seal").good(2, lines(2, 2))
    v.segment(4).good(4, lines(4, 1))

    v = vector("symlinked-segment", "a segment file is a symbolic link (to a valid segment outside the journal): "
               "the journal is refused")
    v.segment(0).good(0, lines(0, 2), level=9).sealed()
    outside = Segment(2).good(2, lines(2, 2))
    v.extra["outside.jsonl.gz"] = outside.data
    v.extra["journal/segments/00000000000000000002.jsonl.gz"] = ("link", "../../outside.jsonl.gz")
    v.refused = {"file": "segments/00000000000000000002.jsonl.gz", "reason": "symlink"}

    v = vector("symlinked-manifest", "manifest.json is a symbolic link (to a valid manifest outside the journal): "
               "the journal is refused")
    v.segment(0).good(0, lines(0, 2))
    v.extra["elsewhere-manifest.json"] = json.dumps(v.manifest, separators=(",", ":")).encode() + b"\n"
    v.extra["journal/manifest.json"] = ("link", "../elsewhere-manifest.json")
    v.refused = {"file": "manifest.json", "reason": "symlink"}

    v = vector("symlinked-segments-dir", "segments/ is a symbolic link (to a directory of valid segments outside "
               "the journal): the journal is refused")
    outside = Segment(0).good(0, lines(0, 2))
    v.extra["elsewhere/00000000000000000000.jsonl.gz"] = outside.data
    v.extra["journal/segments"] = ("link", "../elsewhere")
    v.refused = {"file": "segments", "reason": "symlink"}

    v = vector("symlinked-lock", "journal.lock is a symbolic link (to a file outside the journal): "
               "the journal is refused")
    v.segment(0).good(0, lines(0, 2))
    v.extra["elsewhere.lock"] = b""
    v.extra["journal/journal.lock"] = ("link", "../elsewhere.lock")
    v.refused = {"file": "journal.lock", "reason": "symlink"}

    # A directory (or FIFO, or device: git keeps neither, the tests make them) where a
    # journal file should be is refused like a link (section 2, issue 21): a FIFO at
    # journal.lock made every writer fail after verify said 0, and one at manifest.json
    # made a reader wait for ever.
    v = vector("lock-directory", "journal.lock is a directory: the journal is refused (not-a-file)")
    v.segment(0).good(0, lines(0, 2))
    v.extra["journal/journal.lock"] = ("dir",)
    v.refused = {"file": "journal.lock", "reason": "not-a-file"}

    v = vector("manifest-directory", "manifest.json is a directory: the journal is refused (not-a-file), "
               "not taken for a directory without a journal")
    v.segment(0).good(0, lines(0, 2))
    v.extra["journal/manifest.json"] = ("dir",)
    v.refused = {"file": "manifest.json", "reason": "not-a-file"}

    v = vector("not-segments", "files in segments/ that are not segments: other names, a .tmp- file, "
               "a name past 2^53; all ignored")
    v.segment(0).good(0, lines(0, 2))
    v.extra["journal/segments/.tmp-00000000000000000002.jsonl.gz"] = records_member(2, lines(2, 1))
    v.extra["journal/segments/00000000000000000002.jsonl"] = records_member(2, lines(2, 1))
    v.extra["journal/segments/99999999999999999999.jsonl.gz"] = records_member(2, lines(2, 1))
    v.extra["journal/segments/09007199254740993.jsonl.gz"] = records_member(2, lines(2, 1))
    v.extra["journal/segments/00009007199254740993.jsonl.gz"] = records_member(2, lines(2, 1))

    # Named cursors (section 9): cursor.json is the floor, each reader has cursors/NAME.json.
    v = vector("cursors-several", "three readers: the floor in cursor.json, the default reader and traccar "
               "ahead of it, wayfinder at it; each cursor's backlog is counted")
    v.segment(0).good(0, lines(0, 6), level=9).sealed()
    v.segment(6).good(6, lines(6, 4))
    v.set_cursor(2)
    v.set_named("default", 6)
    v.set_named("traccar", 9)
    v.set_named("wayfinder", 2)

    v = vector("cursors-below-and-above-floor", "named cursors below the floor (an older reader moved "
               "cursor.json past them) and past the end: all valid, each as it is")
    v.segment(0).good(0, lines(0, 5), level=9).sealed()
    v.segment(5).good(5, lines(5, 3))
    v.set_cursor(5)
    v.set_named("a", 3)
    v.set_named("b-2", 0)
    v.set_named("c_3", 1000)

    v = vector("cursors-floor-missing", "named cursors and no cursor.json: the floor is 0")
    v.segment(0).good(0, lines(0, 4))
    v.set_named("default", 4)
    v.set_named("home", 1)

    v = vector("cursors-invalid", "named cursors that are refused: a name that is not the file's, no name, "
               "a name that is not a string, cut JSON, next with a fraction; one valid beside them")
    v.segment(0).good(0, lines(0, 4))
    v.set_cursor(1)
    jid = JOURNAL_ID.encode()
    v.set_named("a", text=b'{"journal_id":"%s","next":2,"name":"b"}\n' % jid, expect={"error": "cursor-invalid"})
    v.set_named("b", text=b'{"journal_id":"%s","next":2}\n' % jid, expect={"error": "cursor-invalid"})
    v.set_named("c", text=b'{"journal_id":"%s","next":2,"name":7}\n' % jid, expect={"error": "cursor-invalid"})
    v.set_named("d", text=b'{"journal_id":"%s","next":2,"name":"d"' % jid, expect={"error": "cursor-invalid"})
    v.set_named("e", text=b'{"journal_id":"%s","next":2.0,"name":"e"}\n' % jid, expect={"error": "cursor-invalid"})
    v.set_named("ok", 3)

    v = vector("cursors-foreign", "a well-formed named cursor of another journal: refused; the others are read")
    v.segment(0).good(0, lines(0, 3))
    v.set_cursor(1)
    v.set_named("default", 1)
    v.set_named("stick", jid=FOREIGN_ID, next_value=2, expect={"error": "cursor-foreign"})

    v = vector("cursors-not-files", "a named cursor that is a symbolic link (to a valid cursor outside the "
               "journal) and one that is a directory: refused, not-a-file")
    v.segment(0).good(0, lines(0, 3))
    v.set_cursor(1)
    v.extra["elsewhere.json"] = b'{"journal_id":"%s","next":1,"name":"linked"}\n' % JOURNAL_ID.encode()
    v.set_named("linked", text=("link", "../../elsewhere.json"), expect={"error": "cursor-not-file"})
    v.set_named("dir", text=None, next_value=0)
    v.extra["journal/cursors/dir.json"] = ("dir",)
    v.named["dir"] = {"error": "cursor-not-file"}
    v.set_named("fine", 2)

    v = vector("cursors-stray-files", "files in cursors/ that are not cursors (upper case, a dot, a leading dash, "
               "a .tmp- file, another extension): ignored; with no cursor left, cursor.json is the default reader's")
    v.segment(0).good(0, lines(0, 3))
    v.set_cursor(2)
    for stray in ["Upper.json", "a.b.json", "-dash.json", ".tmp-x.json", "notes.txt", "x" * 33 + ".json"]:
        v.extra["journal/cursors/" + stray] = b'{"journal_id":"%s","next":0,"name":"x"}\n' % JOURNAL_ID.encode()

    v = vector("cursors-symlinked-dir", "cursors/ is a symbolic link (to a directory of valid cursors outside "
               "the journal): the journal is refused")
    v.segment(0).good(0, lines(0, 2))
    v.extra["elsewhere/default.json"] = b'{"journal_id":"%s","next":2,"name":"default"}\n' % JOURNAL_ID.encode()
    v.extra["journal/cursors"] = ("link", "../elsewhere")
    v.refused = {"file": "cursors", "reason": "symlink"}

    v = vector("cursors-not-a-directory", "cursors is a regular file: the journal is refused")
    v.segment(0).good(0, lines(0, 2))
    v.extra["journal/cursors"] = b"{}\n"
    v.refused = {"file": "cursors", "reason": "not-a-file"}

    progress_vectors(vector)
    return made


def progress_vectors(vector):
    """Progress records (section 9): used when whole, of this journal and reader, and over
    the cursor file as it is; otherwise reported with a code and ignored, never refused."""
    def one_reader(name, about, record, expect, cursor=2):
        v = vector(name, about)
        v.segment(0).good(0, lines(0, 10))
        if cursor is not None:
            v.set_cursor(cursor)
        v.extra["journal/state/progress-default"] = record
        v.cursor_expect = expect
        return v

    intact = progress_record("default", 2, 6)
    one_reader("progress-intact", "the default reader's progress record (base 2, next 6) over cursor.json at 2: "
               "the reader is at 6", intact, {"next": 6, "progress": "valid"})
    one_reader("progress-torn", "a progress record with one bit flipped (a write torn by a power cut): "
               "its CRC-32 fails, the reader is at cursor.json's 2, not refused",
               flip(intact, 33), {"next": 2, "progress": "progress-torn"})
    one_reader("progress-zeros", "a progress record of 76 zero bytes (a power cut on FAT): ignored, not refused",
               bytes(76), {"next": 2, "progress": "progress-torn"})
    one_reader("progress-short", "a progress record cut short (40 of 76 bytes): ignored", intact[:40],
               {"next": 2, "progress": "progress-torn"})
    one_reader("progress-long", "a whole progress record with a byte after it: not a progress record, ignored",
               intact + b"\n", {"next": 2, "progress": "progress-torn"})
    one_reader("progress-foreign", "a whole progress record of another journal: ignored",
               progress_record("default", 2, 6, jid=FOREIGN_ID), {"next": 2, "progress": "progress-foreign"})
    one_reader("progress-other-reader", "a whole progress record of the reader 'home' in progress-default: ignored",
               progress_record("home", 2, 6), {"next": 2, "progress": "progress-foreign"})
    one_reader("progress-stale", "a progress record over another cursor value (base 1, cursor.json at 2: the "
               "cursor file was written after it): ignored, the reader is at 2",
               progress_record("default", 1, 6), {"next": 2, "progress": "progress-stale"})
    one_reader("progress-agrees", "a progress record at the cursor file's value (base 2, next 2): valid",
               progress_record("default", 2, 2), {"next": 2, "progress": "valid"})
    one_reader("progress-behind-base", "a whole progress record whose next is below its base: invalid, ignored",
               progress_record("default", 2, 1), {"next": 2, "progress": "progress-invalid"})
    one_reader("progress-past-2-53", "a whole progress record whose next is past 2^53: invalid, ignored",
               progress_record("default", 2, TWO_53 + 1), {"next": 2, "progress": "progress-invalid"})
    one_reader("progress-past-end", "a progress record past the newest record (a power cut that kept it and lost "
               "records): valid, nothing unsent", progress_record("default", 2, 40), {"next": 40, "progress": "valid"})
    one_reader("progress-no-cursor", "no cursor.json (0) and a progress record over 0: the reader is at 4",
               progress_record("default", 0, 4), {"next": 4, "progress": "valid"}, cursor=None)
    one_reader("progress-symlink", "state/progress-default is a symbolic link (to a valid record outside the "
               "journal): not followed, not refused (progress-not-file)", ("link", "../../elsewhere-progress"),
               {"next": 2, "progress": "progress-not-file"}).extra["elsewhere-progress"] = intact
    v = one_reader("progress-cursor-refused", "cursor.json of another journal and a well-formed progress record: "
                   "the cursor is refused, the progress record is not read", intact, {"error": "cursor-foreign"})
    v.set_cursor(2, jid=FOREIGN_ID)
    v.cursor_expect = {"error": "cursor-foreign"}

    v = vector("progress-named", "named cursors with progress records: home's is valid (cursor 1, at 7), "
               "work's stale, default's torn; cursor.json, the floor, goes by the cursor files alone")
    v.segment(0).good(0, lines(0, 10))
    v.set_cursor(1)
    v.set_named("default", 3)
    v.set_named("home", 1)
    v.set_named("work", 5)
    v.extra["journal/state/progress-home"] = progress_record("home", 1, 7)
    v.extra["journal/state/progress-work"] = progress_record("work", 4, 8)
    v.extra["journal/state/progress-default"] = progress_record("default", 3, 9)[:75] + b"\0"
    v.named["home"]["progress"] = "valid"
    v.named["home"]["next"] = 7
    v.named["work"]["progress"] = "progress-stale"
    v.named["default"]["progress"] = "progress-torn"


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    made = vectors()
    names = [v.name for v in made]
    assert len(names) == len(set(names)), "duplicate vector names"
    for v in made:
        v.write(OUT)
    sys.stdout.write("%d vectors in %s\n" % (len(made), os.path.relpath(OUT)))


if __name__ == "__main__":
    main()
