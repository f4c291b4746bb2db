import OverlandJSON

/// A reader's name: which cursor under `cursors/` is its (journal-format.md section 9).
/// The journal knows readers only by name; `default` is the reader that `cursor.json`
/// served alone before named cursors existed.
public struct CursorName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The reader of a journal with one reader, whose cursor was `cursor.json`.
    public static let `default` = CursorName(checked: "default")
    /// The longest name: with `.json`, a file name well under FAT's limits.
    public static let maxLength = 32

    public let text: String

    /// A name of 1 to 32 characters from `a-z 0-9 _ -`, starting with a letter or digit
    /// (a file name on every file system, never hidden, never a temporary file's); nil otherwise.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, bytes.count <= Self.maxLength, Self.isLetterOrDigit(first),
              bytes.allSatisfy({ Self.isLetterOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }) else {
            return nil
        }
        self.text = text
    }

    private init(checked text: String) { self.text = text }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// The cursor's file name under `cursors/`.
    var fileName: String { text + ".json" }

    /// The name of a file under `cursors/`, or nil when it is not `NAME.json` for a valid NAME.
    init?(fileName: String) {
        guard fileName.hasSuffix(".json") else { return nil }
        self.init(String(fileName.dropLast(5)))
    }

    public var description: String { text }

    public static func < (lhs: CursorName, rhs: CursorName) -> Bool { lhs.text < rhs.text }
}

/// Cursors: the floor (`cursor.json`) and one cursor per reader (`cursors/NAME.json`),
/// and retention, which deletes only what every reader has passed (journal-format.md
/// section 9).
///
/// With no named cursor, `cursor.json` is the default reader's cursor, as it always was.
/// Once a named cursor exists, `cursor.json` is the floor: the lowest of the named cursors,
/// rewritten after each of them moves. A reader of format version 1 that knows nothing of
/// `cursors/` reads the floor, so it may send again what some readers already sent, and its
/// retention and move never pass a record that a reader still needs.
extension Journal {
    /// The lock file (in `state/`) held by whoever moves cursors or deletes segments; the
    /// name stays as the first reader (the sync) chose it, for journals and tools in use.
    static let cursorLockName = "sync.lock"

    var cursorsPath: String { path + "/cursors" }

    func cursorPath(for name: CursorName) -> String { cursorsPath + "/" + name.fileName }

    /// The cursor lock: whoever moves cursors or deletes segments holds it (a sync run, a
    /// move). nil when another process holds it. The lock lasts as long as the returned value.
    public func tryLockCursors() throws(JournalError) -> JournalLock? {
        try tryLock(Self.cursorLockName)
    }

    // MARK: - The floor

    /// The floor: `cursor.json`, the first record not yet acknowledged by every reader (0
    /// when nothing was ever sent). Without named cursors it is the default reader's cursor.
    /// A cursor that cannot be trusted is refused (journal-format.md section 9).
    public func cursor() throws(JournalError) -> UInt64 {
        switch try readCursor() {
        case .valid(let next): return next
        case .refused(_, let reason): throw .untrusted(path: cursorPath, reason: reason)
        }
    }

    /// What a cursor file holds: a valid cursor, or why it is refused.
    public enum CursorReading: Sendable, Equatable {
        case valid(UInt64)
        /// `code`: `cursor-not-file` (a symlink or not a regular file), `cursor-invalid`
        /// (not the JSON of section 9, or a named cursor whose `name` is not its file's),
        /// `cursor-foreign` (another journal's cursor).
        case refused(code: String, reason: String)
    }

    /// Reads `cursor.json`; I/O failures throw, a cursor that cannot be used is `.refused`.
    public func readCursor() throws(JournalError) -> CursorReading {
        try readCursorFile(cursorPath, name: nil) ?? .valid(0)
    }

    /// Moves the default reader's cursor (`advanceCursor(for: .default, to:)`).
    public func advanceCursor(to next: UInt64) throws(JournalError) {
        try advanceCursor(for: .default, to: next)
    }

    // MARK: - Named cursors

    /// A reader's cursor: `cursors/NAME.json`; missing, 0 (a journal carried in from elsewhere
    /// is unsent for every reader here), but for `default`, whose cursor is then `cursor.json`.
    public func cursor(for name: CursorName) throws(JournalError) -> UInt64 {
        switch try readCursor(for: name) {
        case .valid(let next): return next
        case .refused(_, let reason): throw .untrusted(path: cursorPath(for: name), reason: reason)
        }
    }

    /// Reads a reader's cursor as `cursor(for:)` does; a file that cannot be used is `.refused`.
    /// The reader is at its progress record when that is valid (ahead of or at the cursor
    /// file, continuing it: `readProgress`), else at its cursor file.
    public func readCursor(for name: CursorName) throws(JournalError) -> CursorReading {
        let durable = try readDurableCursor(for: name)
        guard case .valid(let next) = durable, case .valid(let ahead)? = try readProgress(for: name, durable: next) else {
            return durable
        }
        return .valid(ahead)
    }

    /// A reader's cursor file alone, without its progress record: what retention and the
    /// floor go by. Missing, 0, but for `default`, whose cursor is then `cursor.json`.
    public func readDurableCursor(for name: CursorName) throws(JournalError) -> CursorReading {
        if let reading = try readCursorFile(cursorPath(for: name), name: name) { return reading }
        return name == .default ? try readCursor() : .valid(0)
    }

    /// `readDurableCursor(for:)`, a refused cursor thrown.
    func durableCursor(for name: CursorName) throws(JournalError) -> UInt64 {
        switch try readDurableCursor(for: name) {
        case .valid(let next): return next
        case .refused(_, let reason): throw .untrusted(path: cursorPath(for: name), reason: reason)
        }
    }

    /// The readers whose cursor files are under `cursors/`, sorted. Other files there are
    /// ignored (`verify` reports them).
    public func cursorNames() throws(JournalError) -> [CursorName] {
        try cursorNames(onIssue: nil)
    }

    /// `cursorNames()`, reporting each file under `cursors/` that is not a cursor (for `verify`).
    public func cursorNames(onIssue: JournalIssueHandler?) throws(JournalError) -> [CursorName] {
        switch fs.kind(cursorsPath) {
        case .missing: return []
        case .directory: break
        case .symlink: throw .untrusted(path: cursorsPath, reason: "is a symbolic link")
        default: throw .untrusted(path: cursorsPath, reason: "not a directory")
        }
        var names: [CursorName] = []
        for fileName in try fs.listDirectory(cursorsPath) {
            if let name = CursorName(fileName: fileName) {
                names.append(name)
            } else if !fileName.hasPrefix(".tmp-") {
                onIssue?(JournalIssue(kind: .unexpectedFile, file: "cursors/" + fileName, offset: 0, length: 0,
                                      reason: "cursor names are NAME.json, NAME of a-z 0-9 _ - (32 at most, a letter or digit first)"))
            }
        }
        return names.sorted()
    }

    /// Moves a reader's cursor, durably and atomically (temporary file, fsync, rename,
    /// directory fsync), then the floor. A cursor past `SequenceNumber.limit` is refused
    /// before anything is written: no reader could read it back. The caller holds the
    /// cursor lock (`tryLockCursors`).
    ///
    /// `durably: false` records the move in the reader's progress record alone (overwritten
    /// in place, no fsync: journal-format.md section 9) when it can: the reader's cursor file
    /// exists and the move does not lower the reader. A killed process leaves the new value
    /// (the page cache outlives it); a power cut may bring back the cursor file's until
    /// `syncCursor(for:)` (a sync run paces it). A first cursor or a lowered one is written
    /// durably whatever `durably` says.
    ///
    /// Without named cursors, the default reader's cursor is `cursor.json` itself. The first
    /// other reader's cursor first copies `cursor.json` into `cursors/default.json`, so that
    /// the default reader keeps its place when `cursor.json` becomes the floor.
    public func advanceCursor(for name: CursorName, to next: UInt64, durably: Bool = true) throws(JournalError) {
        guard next <= SequenceNumber.limit else {
            throw .untrusted(path: cursorPath(for: name), reason: "cursor \(next) is past the largest sequence number (2^53)")
        }
        // Crash tests kill the process here (OVERLAND_FAULT_POINT=cursor.recorded): the move
        // is on disk, in the progress record or the cursor file.
        defer { FaultPoint.reach("cursor.recorded") }
        if !durably {
            // The record this value wrote last still continues the cursor file (`ProgressMemo`):
            // overwritten in place, without reading the files again for its base.
            let last = progressMemo.record(for: name).flatMap { $0.next <= next ? $0 : nil }
            let base: UInt64? = if let last { last.base } else { try progressBase(for: name, upTo: next) }
            if let base {
                let record = ProgressRecord(journalID: id, name: name, base: base, next: next)
                if last != nil { try overwriteProgress(record) } else { try writeProgress(record, durably: false) }
                progressMemo.remember(record)
                return
            }
        }
        var names = try cursorNames()
        if names.isEmpty {
            if name == .default {
                try writingCursor(of: .default, at: next) { () throws(JournalError) in try writeFloor(next) }
                return
            }
            try writeNamedCursor(.default, try cursor())
            names = [.default]
        }
        // Lowered (a reader sent again), the floor goes down first: it never stands above a cursor.
        if try cursor() > next { try writeFloor(next) }
        try writeNamedCursor(name, next)
        FaultPoint.reach("cursors.after-named")
        try updateFloor()
    }

    /// Makes the reader's place durable after moves with `durably: false`: when its progress
    /// record is ahead of its cursor file, the cursor file is written there (durably, the
    /// progress record settled first), then the floor raised to the lowest cursor.
    public func syncCursor(for name: CursorName) throws(JournalError) {
        guard case .valid(let next) = try readCursor(for: name), try durableCursor(for: name) != next else { return }
        try advanceCursor(for: name, to: next)
    }

    /// Forgets a reader: deletes `cursors/NAME.json`, durably, and raises the floor to the
    /// lowest remaining cursor (releasing what the reader held). A missing cursor is fine.
    public func removeCursor(for name: CursorName) throws(JournalError) {
        let file = cursorPath(for: name)
        try removeProgress(for: name)
        guard try fs.checkRegularFile(file) else { return }
        try fs.remove(file)
        try fs.syncDirectory(cursorsPath)
        try updateFloor()
    }

    /// Records appended but not yet acknowledged by the reader `name`. Damaged ranges count
    /// as records until a reader skips them.
    public func backlog(for name: CursorName) throws(JournalError) -> UInt64 {
        let end = try endSequence()
        let next = try cursor(for: name)
        return end > next ? end - next : 0
    }

    /// Records appended but not yet acknowledged by every reader: the backlog from the floor.
    public func backlog() throws(JournalError) -> UInt64 {
        let end = try endSequence()
        let next = try cursor()
        return end > next ? end - next : 0
    }

    /// The first record that some reader of `readers` (every configured destination) has
    /// not had acknowledged: the lowest of their places, progress records included (a
    /// missing cursor file is 0, `default`'s is `cursor.json`; a refused one is 0: its
    /// place is unknown). A reader without a cursor file holds its records unsent even
    /// where the floor, which counts only cursor files, has passed them; a cursor file of a
    /// reader not named holds nothing. No reader named: the floor.
    public func unsentFrom(readers: [CursorName]) throws(JournalError) -> UInt64 {
        guard !readers.isEmpty else { return try cursor() }
        var lowest = UInt64.max
        for name in readers {
            guard case .valid(let next) = try readCursor(for: name) else { return 0 }
            lowest = min(lowest, next)
        }
        return lowest
    }

    /// The highest cursor of all (the floor and every readable reader's place, progress
    /// records included): an appender
    /// numbers new records from at least there, so that no reader skips them. A named cursor
    /// that is refused holds nothing here (its reader cannot run until it is fixed).
    /// `refusing: false` passes over a refused `cursor.json` too (for counting the
    /// journal's end); an appender refuses it (section 6 needs it).
    func highestCursor(refusing: Bool = true) throws(JournalError) -> UInt64 {
        var highest: UInt64 = 0
        switch try readCursor() {
        case .valid(let next): highest = next
        case .refused(_, let reason): if refusing { throw .untrusted(path: cursorPath, reason: reason) }
        }
        if case .valid(let next) = try readCursor(for: .default) { highest = max(highest, next) }
        for name in try cursorNames() {
            if case .valid(let next) = try readCursor(for: name) { highest = max(highest, next) }
        }
        return highest
    }

    /// The floor as the named cursors make it: their lowest; nil without named cursors.
    /// A named cursor that is refused keeps the floor where it is (it cannot rise past a
    /// place unknown).
    func floorOfNamedCursors() throws(JournalError) -> UInt64? {
        var lowest: UInt64?
        var blocked = false
        for name in try cursorNames() {
            switch try readCursorFile(cursorPath(for: name), name: name) {
            case .valid(let next): lowest = min(lowest ?? next, next)
            case .refused, .none: blocked = true
            }
        }
        if blocked { lowest = min(lowest ?? .max, try cursor()) }
        return lowest
    }

    /// Rewrites `cursor.json` to the lowest named cursor when it differs. Raised, it passes
    /// only cursor files whose names are durable: `cursors/` is fsynced first, since a
    /// cursor renamed into place whose directory fsync failed (or never ran: a process
    /// killed) reads as moved from the cache and may come back lower after a power cut,
    /// below the floor (journal-sim, a failed directory fsync inside a move: the move run
    /// again found every cursor past the segment and raised the floor over one whose name
    /// was not durable).
    func updateFloor() throws(JournalError) {
        guard let floor = try floorOfNamedCursors() else { return }
        let current = try cursor()
        guard current != floor else { return }
        if floor > current { try fs.syncDirectory(cursorsPath) }
        try writeFloor(floor)
    }

    func writeFloor(_ next: UInt64) throws(JournalError) {
        progressMemo.forgetAll()
        try fs.replaceAtomically(cursorPath, with: JournalCursor(journalID: id, next: next).encoded, faultPrefix: "cursor")
    }

    /// Writes a reader's cursor file, durably, its progress record settled (`writingCursor`).
    func writeNamedCursor(_ name: CursorName, _ next: UInt64) throws(JournalError) {
        progressMemo.forgetAll()
        try writingCursor(of: name, at: next) { () throws(JournalError) in
            try fs.makeDirectory(cursorsPath)
            try fs.replaceAtomically(cursorPath(for: name), with: JournalCursor(journalID: id, next: next, name: name.text).encoded,
                                     faultPrefix: "cursors")
        }
    }

    /// Reads one cursor file: nil when missing; `name` for a named cursor, whose `name`
    /// key must be present and equal.
    func readCursorFile(_ file: String, name: CursorName?) throws(JournalError) -> CursorReading? {
        switch fs.kind(file) {
        case .missing: return nil
        case .file: break
        case .symlink: return .refused(code: "cursor-not-file", reason: "is a symbolic link")
        default: return .refused(code: "cursor-not-file", reason: "not a regular file")
        }
        let cursor: JournalCursor
        do {
            cursor = try JournalCursor(parsing: fs.readFile(file, limit: 1024), path: file)
        } catch {
            guard case .untrusted(_, let reason) = error else { throw error }
            return .refused(code: reason.hasSuffix("symbolic link") || reason == "not a regular file" ? "cursor-not-file" : "cursor-invalid",
                            reason: reason)
        }
        if let name, cursor.name != name.text {
            let shown = { (text: String) in PrintableText.sanitised(String(text.prefix(64)), allowLineBreaks: false) }
            return .refused(code: "cursor-invalid", reason: cursor.name.map { "cursor is named '\(shown($0))', not '\(name)'" }
                ?? "cursor has no name string (a named cursor holds \"name\":\"\(name)\")")
        }
        guard cursor.journalID == id else {
            return .refused(code: "cursor-foreign", reason: "cursor belongs to journal \(cursor.journalID), not \(id)")
        }
        return .valid(cursor.next)
    }

    // MARK: - Retention

    /// Deletes sealed segments whose records every reader has acknowledged, once they are
    /// older than `keepSeconds` (0: at once): those below the floor and below the cursor of
    /// each reader in `readers` (missing: 0; `default` missing: `cursor.json`). With
    /// `onlyReaders`, `readers` are all the readers there are (every configured
    /// destination): the floor is not consulted, so the cursor file of a reader no longer
    /// configured holds nothing back (with no reader named, the floor still rules). The
    /// newest segment always stays: it carries the sequence numbering on. The caller holds
    /// the cursor lock. `holdingFrom` (the lowest stored mark of the destinations that
    /// verify) keeps every segment from that record on too. Returns the names deleted.
    @discardableResult
    public func removeSentSegments(keepSeconds: Int64 = 0, now: Int64 = Journal.currentTime(),
                                   readers: [CursorName] = [], onlyReaders: Bool = false,
                                   holdingFrom: UInt64? = nil) throws(JournalError) -> [SegmentName] {
        let names = try segments()
        var next = onlyReaders && !readers.isEmpty ? UInt64.max : try cursor()
        for reader in readers { next = min(next, try durableCursor(for: reader)) }
        if let holdingFrom { next = min(next, holdingFrom) }
        var removed: [SegmentName] = []
        for (index, name) in names.enumerated().dropLast() where names[index + 1].firstSequence <= next {
            let file = segmentPath(name)
            if keepSeconds > 0, let modified = fs.modificationTime(file), modified + keepSeconds > now { continue }
            guard try isSealed(name) else { continue }
            try fs.remove(file)
            removed.append(name)
        }
        if !removed.isEmpty { try fs.syncDirectory(segmentsPath) }
        return removed
    }
}
