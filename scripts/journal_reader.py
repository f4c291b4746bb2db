#!/usr/bin/env python3
"""Reads an overland journal with nothing but Python 3's standard library.

Written from journal-format.md alone (sections 2 to 9 and 14, progress records included), as a second, independent
reader: for a machine without Swift (one that receives USB sticks), and to check the
format's test vectors against the Swift tools.

    python3 scripts/journal_reader.py JOURNAL          every intact record, as stored, one a line
    python3 scripts/journal_reader.py JOURNAL --json   the summary of `overland journal verify --json`

Exit status: 0 intact (a torn tail is not damage), 65 damage found, a cursor or the journal
refused, 66 not a journal, 64 usage. It never writes to the journal.
"""

import json
import os
try:
    import fcntl
except ImportError:  # not a POSIX system: nobody appends there while we read
    fcntl = None
import re
import stat
import struct
import sys
import zlib

MAX_SEQUENCE_END = 1 << 53          # records are numbered below this; cursors reach it
MAX_MEMBER = 2 * 1024 * 1024
MAX_PAYLOAD = 1024 * 1024
MAX_SEGMENT_FILE = 256 * 1024 * 1024
MAX_RECORD = 65536
MAX_DEPTH = 64
HEADER = 54
SEAL_SIZE = 64
SEGMENT_NAME = re.compile(r"^[0-9]{20}\.jsonl\.gz$")
CURSOR_FILE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}\.json$")

EX_DATAERR = 65
EX_NOINPUT = 66
EX_USAGE = 64


class Refused(Exception):
    """The journal cannot be read safely (section 2)."""

    def __init__(self, file, reason):
        super().__init__(file + ": " + reason)
        self.file = file
        self.reason = reason


class NotAJournal(Exception):
    pass


# ---------------------------------------------------------------------------- records

def valid_record(line):
    """Section 3: one JSON object, 1 to 65,536 bytes, strict RFC 8259, depth <= 64."""
    if not 1 <= len(line) <= MAX_RECORD or b"\n" in line:
        return False
    try:
        text = line.decode("utf-8", "strict")  # rejects overlongs, surrogates, > U+10FFFF
    except UnicodeDecodeError:
        return False
    return valid_object_text(text)


def _not_a_constant(text):
    raise ValueError("NaN and Infinity are not JSON")


# One decoder for every record (json.loads would build one per call: most of its cost).
_SYNTAX = json.JSONDecoder(parse_constant=_not_a_constant)


def valid_object_text(text):
    """One JSON object by section 3's rules (RFC 8259, paired surrogate escapes, depth <= 64).
    Python's own parser decides the common case, which it reads as those rules do: with no
    `\\u` escape (the only way to write a lone surrogate in UTF-8 text) and no more brackets
    than the depth bound, only its constants (NaN, Infinity) differ, refused by the hook.
    What it refuses, and anything else, goes through the exact checker, character by
    character (Python also refuses an integer of over 4,300 digits, which is syntax)."""
    if "\\u" not in text and text.count("{") + text.count("[") <= MAX_DEPTH:
        try:
            return isinstance(_SYNTAX.decode(text), dict)
        except ValueError:
            pass
    return _JSONChecker(text).object_document()


class _JSONChecker:
    WS = " \t\n\r"
    NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")

    def __init__(self, text):
        self.text = text
        self.i = 0

    def ws(self):
        while self.i < len(self.text) and self.text[self.i] in self.WS:
            self.i += 1

    def object_document(self):
        self.ws()
        if not self.text.startswith("{", self.i):
            return False
        if not self.value(1):
            return False
        self.ws()
        return self.i == len(self.text)

    def value(self, depth):
        self.ws()
        if self.i >= len(self.text):
            return False
        c = self.text[self.i]
        if c in "{[":
            if depth > MAX_DEPTH:
                return False
            close = "}" if c == "{" else "]"
            self.i += 1
            self.ws()
            if self.text.startswith(close, self.i):
                self.i += 1
                return True
            while True:
                if c == "{":
                    self.ws()
                    if not self.text.startswith('"', self.i) or not self.string():
                        return False
                    self.ws()
                    if not self.text.startswith(":", self.i):
                        return False
                    self.i += 1
                if not self.value(depth + 1):
                    return False
                self.ws()
                if self.text.startswith(",", self.i):
                    self.i += 1
                    continue
                if self.text.startswith(close, self.i):
                    self.i += 1
                    return True
                return False
        if c == '"':
            return self.string()
        for literal in ("true", "false", "null"):
            if self.text.startswith(literal, self.i):
                self.i += len(literal)
                return True
        match = self.NUMBER.match(self.text, self.i)
        if match and match.end() > self.i:
            self.i = match.end()
            return True
        return False

    def string(self):
        self.i += 1  # the opening quote
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c == '"':
                self.i += 1
                return True
            if ord(c) < 0x20:
                return False
            if c == "\\":
                escape = text[self.i + 1:self.i + 2]
                if escape in ('"', "\\", "/", "b", "f", "n", "r", "t"):
                    self.i += 2
                    continue
                if escape != "u":
                    return False
                unit = self._hex4(self.i + 2)
                if unit is None or 0xDC00 <= unit <= 0xDFFF:
                    return False
                if 0xD800 <= unit <= 0xDBFF:
                    if text[self.i + 6:self.i + 8] != "\\u":
                        return False
                    low = self._hex4(self.i + 8)
                    if low is None or not 0xDC00 <= low <= 0xDFFF:
                        return False
                    self.i += 12
                else:
                    self.i += 6
                continue
            self.i += 1
        return False

    def _hex4(self, at):
        digits = self.text[at:at + 4]
        if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
            return None
        return int(digits, 16)


# ---------------------------------------------------------------------------- members

def header_at(data, offset, journal_id):
    """Section 5 rules 1 to 3 at `offset`. Returns (header, None) or (None, code)."""
    if len(data) - offset < HEADER:
        return None, "truncated"
    h = data[offset:offset + HEADER]
    if h[0:4] != b"\x1f\x8b\x08\x06":
        return None, "bad-header"
    xlen, = struct.unpack_from("<H", h, 10)
    if xlen != 40 or h[12:14] != b"OJ" or struct.unpack_from("<H", h, 14)[0] != 36:
        return None, "bad-header"
    if struct.unpack_from("<H", h, 52)[0] != zlib.crc32(h[0:52]) & 0xFFFF:
        return None, "bad-header"
    version, kind = h[16], h[17]
    if version != 1 or kind not in (1, 2) or h[18:20] != b"\0\0":
        return None, "bad-header"
    size, first, count = struct.unpack_from("<IQI", h, 20)
    if not SEAL_SIZE <= size <= MAX_MEMBER or first > MAX_SEQUENCE_END:
        return None, "bad-header"
    if kind == 1 and (count < 1 or first + count > MAX_SEQUENCE_END):
        return None, "bad-header"
    if offset + size > len(data):
        return None, "truncated"
    if h[36:52] != journal_id:
        return None, "foreign-member"
    return {"kind": kind, "size": size, "first": first, "count": count}, None


def member_lines(member, count):
    """Rule 4 and rule 5's lines. Returns (lines, None) or (None, code)."""
    crc, isize = struct.unpack_from("<II", member, len(member) - 8)
    if isize > MAX_PAYLOAD:
        return None, "bad-data"
    inflater = zlib.decompressobj(-15)
    try:
        data = inflater.decompress(member[HEADER:-8], MAX_PAYLOAD + 1)
    except zlib.error:
        return None, "bad-data"
    if not inflater.eof or inflater.unused_data or inflater.unconsumed_tail or len(data) != isize:
        return None, "bad-data"
    if zlib.crc32(data) != crc:
        return None, "bad-data"
    if not data.endswith(b"\n"):
        return None, "bad-record"
    lines = data[:-1].split(b"\n")
    if len(lines) != count or not all(valid_record(line) for line in lines):
        return None, "bad-record"
    return lines, None


def seal_ok(data, offset, hdr, name, framed_count):
    """Rule 6."""
    return (hdr["size"] == SEAL_SIZE
            and data[offset + HEADER:offset + SEAL_SIZE] == b"\x03\x00" + bytes(8)
            and hdr["first"] == name and hdr["count"] == framed_count
            and offset + SEAL_SIZE == len(data))


def resync(data, offset, journal_id):
    """The resynchronisation point: the next offset after `offset` with a valid header."""
    p = offset + 1
    while True:
        p = data.find(b"\x1f\x8b\x08\x06", p)
        if p < 0:
            return len(data)
        hdr, _ = header_at(data, p, journal_id)
        if hdr is not None:
            return p
        p += 1


def read_segment(data, name, journal_id, emit):
    """Section 8, 'Reading a segment'. Calls emit(first, lines) for each intact member, in
    order; returns (intact_end, ranges, sealed): the end of the last intact member (0 if
    none) and the damaged ranges as (offset, length, code)."""
    intact_end, ranges = 0, []
    offset, nxt, framed_count, sealed = 0, name, 0, False
    while offset < len(data):
        hdr, code = header_at(data, offset, journal_id)
        if hdr is not None and hdr["kind"] == 1 and hdr["first"] < nxt:
            hdr, code = None, "out-of-sequence"
        if hdr is None:
            end = resync(data, offset, journal_id)
            if data[offset:end].count(0) == end - offset:
                code = "zero-filled"
            ranges.append((offset, end - offset, code))
            offset = end
            continue
        size = hdr["size"]
        if hdr["kind"] == 1:
            nxt = hdr["first"] + hdr["count"]
            framed_count += hdr["count"]
            lines, code = member_lines(data[offset:offset + size], hdr["count"])
            if lines is None:
                ranges.append((offset, size, code))
            else:
                # Passed on at once: nothing is kept per member (memory is bounded by a
                # member, not by how many a segment holds).
                emit(hdr["first"], lines)
                intact_end = offset + size
        elif seal_ok(data, offset, hdr, name, framed_count):
            sealed = True
        else:
            ranges.append((offset, size, "bad-seal"))
        offset += size
    return intact_end, ranges, sealed


# ---------------------------------------------------------------------------- journal

def is_regular(path, relative):
    """Refuses links and non-regular files (section 2); False when missing."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode):
        raise Refused(relative, "symlink")
    if not stat.S_ISREG(info.st_mode):
        raise Refused(relative, "not-a-file")
    return True


class Members(dict):
    """A JSON object that knows whether one of its keys was repeated."""
    repeated = False


def members(pairs):
    result = Members(pairs)
    result.repeated = len(result) != len(pairs)
    return result


def is_utc_time(text):
    """Exactly YYYY-MM-DDTHH:MM:SSZ in ASCII digits, a real calendar time (section 2)."""
    if not isinstance(text, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", text):
        return False
    year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return (1 <= month <= 12 and 1 <= day <= days[month - 1]
            and int(text[11:13]) < 24 and int(text[14:16]) < 60 and int(text[17:19]) < 60)


def read_manifest(journal):
    path = os.path.join(journal, "manifest.json")
    try:
        # A link, directory, FIFO or device is refused before it is opened (section 2):
        # opening a FIFO would wait for a writer for ever.
        if not is_regular(path, "manifest.json"):
            raise NotAJournal("no manifest.json")
    except OSError as error:
        raise NotAJournal("manifest.json: %s" % error)
    try:
        with open(path, "rb") as f:
            raw = f.read(4097)
        if len(raw) > 4096:
            raise Refused("manifest.json", "too-large")
        text = raw.decode("utf-8")
        # Unknown keys may hold any value a record may (section 2): the record rules first,
        # which also bound the nesting before Python's recursive parser sees it.
        if not valid_object_text(text):
            raise ValueError("not one JSON object by the rules of section 3")
        manifest = json.loads(text, object_pairs_hook=members)
    except (OSError, ValueError) as error:
        raise NotAJournal("manifest.json: %s" % error)
    # A repeated key in the manifest's object: readers would each choose a value (section 2).
    if isinstance(manifest, dict) and manifest.repeated:
        raise NotAJournal("manifest.json repeats a key")
    if not isinstance(manifest, dict) or manifest.get("format") != "overland-journal":
        raise NotAJournal("manifest.json is not an overland journal manifest")
    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= 1:
        raise NotAJournal("manifest.json: version %r, this reader knows 1" % (version,))
    journal_id = manifest.get("journal_id")
    if not isinstance(journal_id, str) or not re.fullmatch(r"[0-9a-fA-F]{32}", journal_id):
        raise NotAJournal("manifest.json: journal_id is not 32 hex digits")
    if not is_utc_time(manifest.get("created")):
        raise NotAJournal("manifest.json: created is not YYYY-MM-DDTHH:MM:SSZ")
    segments = os.path.join(journal, "segments")
    try:
        info = os.lstat(segments)
    except FileNotFoundError:
        raise NotAJournal("no segments directory")
    if stat.S_ISLNK(info.st_mode):
        raise Refused("segments", "symlink")
    if not stat.S_ISDIR(info.st_mode):
        raise Refused("segments", "not-a-file")
    is_regular(os.path.join(journal, "journal.lock"), "journal.lock")
    cursor_names(journal)  # refuses a cursors/ that is a link or not a directory (section 14)
    return bytes.fromhex(journal_id)


def cursor_names(journal):
    """The readers with a cursor file under cursors/ (section 9), sorted; other files are
    not cursors. Refuses a cursors/ that is a symlink or not a directory (section 14)."""
    path = os.path.join(journal, "cursors")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return []
    if stat.S_ISLNK(info.st_mode):
        raise Refused("cursors", "symlink")
    if not stat.S_ISDIR(info.st_mode):
        raise Refused("cursors", "not-a-file")
    return sorted(entry[:-5] for entry in os.listdir(path) if CURSOR_FILE.match(entry))


def read_cursor(journal, journal_id, name=None):
    """Section 9: cursor.json, or cursors/NAME.json for a name. Returns ("ok", next)
    (0 when the file is missing) or ("error", code)."""
    relative = "cursor.json" if name is None else "cursors/%s.json" % name
    path = os.path.join(journal, relative)
    try:
        if not is_regular(path, relative):
            return "ok", 0
    except Refused:
        return "error", "cursor-not-file"
    with open(path, "rb") as f:
        raw = f.read(1025)
    if len(raw) > 1024:
        return "error", "cursor-invalid"

    class NotPlain:
        """A number not written as plain digits: never a `next`, any value elsewhere."""

    def plain_int(text):
        return int(text) if re.fullmatch(r"0|[1-9][0-9]*", text) else NotPlain()

    try:
        text = raw.decode("utf-8")
        # Unknown keys may hold any value a record may (section 9).
        if not valid_object_text(text):
            return "error", "cursor-invalid"
        cursor = json.loads(text, parse_int=plain_int, parse_float=lambda _: NotPlain(), object_pairs_hook=members)
    except (ValueError, UnicodeDecodeError):
        return "error", "cursor-invalid"
    # A key repeated in the cursor's object is refused: readers would each choose (section 9).
    if not isinstance(cursor, dict) or cursor.repeated:
        return "error", "cursor-invalid"
    cid, nxt = cursor.get("journal_id"), cursor.get("next")
    if not isinstance(cid, str) or not re.fullmatch(r"[0-9a-fA-F]{32}", cid):
        return "error", "cursor-invalid"
    if not isinstance(nxt, int) or isinstance(nxt, bool) or not 0 <= nxt <= MAX_SEQUENCE_END:
        return "error", "cursor-invalid"
    if name is not None and cursor.get("name") != name:
        return "error", "cursor-invalid"
    if bytes.fromhex(cid) != journal_id:
        return "error", "cursor-foreign"
    return "ok", nxt


PROGRESS_SIZE = 76
PROGRESS_MAGIC = b"olprog1\n"


def read_progress(journal, journal_id, name, durable):
    """Section 9: state/progress-NAME against the reader's durable cursor. None when
    missing, ("valid", next) when whole, this journal's and reader's, and continuing the
    cursor file (base == durable), else ("ignored", code). Never refuses anything."""
    path = os.path.join(journal, "state", "progress-" + name)
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # no state/, or a file in its place: no record
        return None
    if not stat.S_ISREG(info.st_mode):
        return "ignored", "progress-not-file"
    with open(path, "rb") as f:
        raw = f.read(PROGRESS_SIZE + 1)
    if len(raw) != PROGRESS_SIZE or raw[:8] != PROGRESS_MAGIC \
            or struct.unpack_from("<I", raw, 72)[0] != zlib.crc32(raw[:72]):
        return "ignored", "progress-torn"
    field = raw[40:72]
    stored = field.split(b"\0", 1)[0]
    if field[len(stored):].strip(b"\0") or not CURSOR_FILE.match(stored.decode("ascii", "replace") + ".json"):
        return "ignored", "progress-torn"
    base, nxt = struct.unpack_from("<QQ", raw, 24)
    if raw[8:24] != journal_id or stored.decode("ascii") != name:
        return "ignored", "progress-foreign"
    if nxt < base or nxt > MAX_SEQUENCE_END:
        return "ignored", "progress-invalid"
    if base != durable:
        return "ignored", "progress-stale"
    return "valid", nxt


def read_reader(journal, journal_id, name, cursor_name):
    """A reader's place (section 9): its cursor file (cursor_name None: cursor.json), or its
    progress record when valid. Returns ((state, value), progress)."""
    state, value = read_cursor(journal, journal_id, cursor_name)
    if state != "ok":
        return (state, value), None
    progress = read_progress(journal, journal_id, name, value)
    if progress is not None and progress[0] == "valid":
        value = progress[1]
    return (state, value), progress


def read_segment_file(journal, entry, newest):
    """A segment's bytes; the newest under a shared lock on journal.lock (section 6), so
    that they end at a commit. Without a lock file (read-only media) it reads without."""
    path = os.path.join(journal, "segments", entry)
    lock = None
    if newest and fcntl is not None:
        try:
            lock = os.open(os.path.join(journal, "journal.lock"), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
            fcntl.flock(lock, fcntl.LOCK_SH)
        except OSError:
            if lock is not None:
                os.close(lock)
            lock = None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            return f.read(MAX_SEGMENT_FILE + 1)
    finally:
        if lock is not None:
            os.close(lock)


def read_journal(journal, emit_record):
    """Everything a reader finds: emit_record(sequence, line) for each record in order, as
    it is read (none is kept: memory does not grow with the records or the members);
    returns the summary."""
    journal_id = read_manifest(journal)
    names = []
    for entry in os.listdir(os.path.join(journal, "segments")):
        if SEGMENT_NAME.match(entry) and int(entry[:20]) <= MAX_SEQUENCE_END:
            names.append(entry)
    names.sort()
    # Refuse before reading anything (section 2).
    for entry in names:
        path = os.path.join(journal, "segments", entry)
        is_regular(path, "segments/" + entry)
        if os.lstat(path).st_size > MAX_SEGMENT_FILE:
            raise Refused("segments/" + entry, "too-large")

    # The cursors are read first, so that each one's backlog is counted as records pass.
    readers = cursor_names(journal)
    if readers:
        cursors = [("cursor.json", read_cursor(journal, journal_id), None)]
        cursors += [(name,) + read_reader(journal, journal_id, name, name) for name in readers]
    else:
        cursors = [("default",) + read_reader(journal, journal_id, "default", None)]
    starts = [value for _, (state, value), _ in cursors if state == "ok"]
    counts = {"records": 0, "unsent": [0] * len(starts)}

    damaged, tail = [], None
    for index, entry in enumerate(names):
        relative = "segments/" + entry
        name = int(entry[:20])
        newest = index == len(names) - 1
        limit = int(names[index + 1][:20]) if not newest else None
        try:
            data = read_segment_file(journal, entry, newest)
        except FileNotFoundError:
            continue  # deleted by retention since the listing
        def emit(first, lines, limit=limit):
            for number, line in enumerate(lines, start=first):
                if limit is None or number < limit:
                    counts["records"] += 1
                    for position, start in enumerate(starts):
                        if number >= start:
                            counts["unsent"][position] += 1
                    emit_record(number, line)

        intact_end, ranges, sealed = read_segment(data, name, journal_id, emit)
        size = len(data)
        del data
        if newest and not sealed:
            after = [r for r in ranges if r[0] >= intact_end]
            if intact_end < size and not any(code == "foreign-member" for _, _, code in after):
                tail = {"file": relative, "offset": intact_end, "length": size - intact_end}
                ranges = [r for r in ranges if r[0] < intact_end]
        for offset, length, code in sorted(ranges):
            damaged.append({"file": relative, "offset": offset, "length": length, "reason": code})

    summary = {"segments": len(names), "records": counts["records"], "damaged": damaged}
    # One reader: cursor.json is the default reader's cursor. Several: it is the floor,
    # listed under its file name, then each reader's cursor by name (section 14).
    summary["cursors"] = {}
    unsent = iter(counts["unsent"])
    for key, (state, value), progress in cursors:
        if state != "ok":
            summary["cursors"][key] = {"error": value}
            continue
        summary["cursors"][key] = {"next": value, "unsent": next(unsent)}
        if progress is not None:  # a progress record never refuses: "valid" or why not used
            summary["cursors"][key]["progress"] = "valid" if progress[0] == "valid" else progress[1]
    summary["tail"] = tail
    return summary


def main(argv):
    args = [a for a in argv if a != "--json"]
    if len(args) != 1 or args[0].startswith("-"):
        sys.stderr.write("usage: journal_reader.py JOURNAL [--json]\n")
        return EX_USAGE
    journal = args[0]
    out = sys.stdout.buffer
    if "--json" in argv:
        def emit_record(number, line):
            pass
    else:
        def emit_record(number, line):
            out.write(line + b"\n")
    try:
        summary = read_journal(journal, emit_record)
    except Refused as refusal:
        if "--json" in argv:
            sys.stdout.write(json.dumps({"refused": {"file": refusal.file, "reason": refusal.reason}}) + "\n")
        sys.stderr.write("journal_reader.py: refusing '%s': %s\n" % (refusal.file, refusal.reason))
        return EX_DATAERR
    except NotAJournal as error:
        sys.stderr.write("journal_reader.py: '%s' is not a usable journal: %s\n" % (journal, error))
        return EX_NOINPUT
    if "--json" in argv:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        out.flush()
    for item in summary["damaged"]:
        sys.stderr.write("journal_reader.py: %s: %d damaged bytes at offset %d skipped (%s)\n"
                         % (item["file"], item["length"], item["offset"], item["reason"]))
    refused = False
    for key, entry in summary["cursors"].items():
        if "error" in entry:
            refused = True
            sys.stderr.write("journal_reader.py: refusing %s: %s\n"
                             % ("cursor.json" if key in ("default", "cursor.json") else "cursors/%s.json" % key, entry["error"]))
    if summary["damaged"] or refused:
        return EX_DATAERR
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
