import OverlandJSON

/// Which whole seconds the journal holds a location point for, per device, ever: how
/// `overland-log` knows that a fix is already logged (journal-format.md, "The time index").
///
/// It lives in `state/times` (``TimeIndexFile``), read a block at a time: memory does not
/// grow with the file. The seconds logged since it was last written are held in memory
/// (runs per device) until the next save merges them into a new file. The file is checked
/// when opened (its grammar, order, and no more seconds than the records it covers), and
/// the first time it would make a fix count as already logged, against the journal's
/// records: each second is a point of its device within the span of that device's points,
/// or one of the records no longer in the journal (`disagreement`). A file that fails
/// either is rebuilt from the records.
public final class JournalTimeIndex {
    /// A record's key: its point second and its device's key; nil for other records.
    public typealias Key = (ArraySlice<UInt8>) -> (second: Int64, device: ArraySlice<UInt8>)?

    /// The name of the state file.
    public static let stateName = "times"
    /// Runs held in memory during a rebuild or catch-up before they are merged into the file.
    static let rebuildRuns = 65_536

    private let journal: Journal
    private var fs: any FileSystem { journal.fileSystem }
    private let key: Key
    private let path: String
    private var opened: TimeIndexFile?
    /// Written since `opened` was read: checked and opened again when next looked at (not
    /// at once, so that the last save of a run does not read the file back for nothing).
    private var written = false
    private var file: TimeIndexFile? {
        if written {
            written = false
            opened = nil
            if case .success(let reopened)? = try? TimeIndexFile.open(path, in: journal.fileSystem) { opened = reopened }
        }
        return opened
    }
    /// Seconds logged since the file was written, per device key.
    private var held: [[UInt8]: TimeRuns] = [:]
    /// Whether the file was checked against the journal's records in this run.
    private var confirmed = false

    /// Why the file was rebuilt (for one line on standard error), if it was.
    public private(set) var rebuilt: String?

    /// The record sequence number below which the file covers the journal.
    public var through: UInt64 { file?.through ?? 0 }
    /// Runs held in memory, not yet in the file.
    public var heldRuns: Int { held.values.reduce(0) { $0 + $1.runs.count } }

    init(journal: Journal, key: @escaping Key) {
        self.journal = journal
        self.key = key
        path = journal.statePath(of: Self.stateName)
    }

    /// Whether a point of `device` (its key, ``LocationFeature.deviceKey``) at `second` is
    /// held. An index file that would say so is first checked against the journal (once):
    /// a read error says no, so that no fix is dropped by mistake.
    public func contains(device: [UInt8], second: Int64) -> Bool {
        if held[device]?.contains(second) == true { return true }
        guard inFile(device, second) else { return false }
        if confirmed { return true }
        confirmed = true
        do {
            if let reason = try disagreement() {
                try rebuild(because: reason)
                return inFile(device, second)
            }
        } catch {
            return false
        }
        return true
    }

    private func inFile(_ device: [UInt8], _ second: Int64) -> Bool {
        guard let file, let section = file.section(of: device) else { return false }
        return (try? file.contains(section: section, second)) ?? false
    }

    /// Adds a point's second; false when it was held already.
    @discardableResult
    public func insert(device: [UInt8], second: Int64) -> Bool {
        guard (0...TimeIndexFile.maxSecond).contains(second) else { return false }
        if inFile(device, second) { return false }
        return held[device, default: TimeRuns()].insert(second)
    }

    /// Writes the index covering the journal's records below `through` (every one of them
    /// committed, and every held second among them): the file's runs merged with those
    /// held. A file replaced or removed by another process since it was read (a repair that
    /// forgot seconds set aside, another logger) is left as it is: the next logger catches
    /// up from it or rebuilds.
    public func save(through: UInt64) throws(JournalError) {
        if let file, !file.isStill(at: path) { return }
        try write(merging: held, through: through)
        held.removeAll()
    }

    private func write(merging extra: [[UInt8]: TimeRuns], through: UInt64) throws(JournalError) {
        try fs.makeDirectory(journal.statePath)
        try TimeIndexWriter.write(path, in: fs, through: through, file: file, extra: extra)
        written = true
    }

    // MARK: - Loading, catching up, checking

    /// Opens the file and catches up on the records past it (rebuilding when it is
    /// missing, breaks the grammar, or covers past the journal's end).
    func load() throws(JournalError) {
        let end = try journal.endSequence()
        switch try TimeIndexFile.open(path, in: journal.fileSystem) {
        case nil:
            break
        case .failure(let invalid)?:
            rebuilt = invalid.reason
            // No file can be renamed over a directory: it is set aside, so that the rebuilt
            // index can be written (a stick is untrusted; a logger must not stop on it).
            if fs.kind(path) == .directory {
                let aside = try journal.setAsideState(Self.stateName, label: "not-a-file")
                rebuilt = invalid.reason + ", set aside as '\(aside)'"
            }
        case .success(let opened)?:
            if opened.through > end {
                rebuilt = "covers records up to \(opened.through), past the journal's end (\(end))"
            } else {
                self.opened = opened
            }
        }
        try catchUp(to: end)
    }

    /// Reads the records from the file's `through` on into the file, in pieces of at most
    /// `rebuildRuns` runs.
    private func catchUp(to end: UInt64) throws(JournalError) {
        if let file, file.through >= end { return }
        var pending: [[UInt8]: TimeRuns] = [:]
        var pendingRuns = 0
        let reader = try journal.records(from: through)
        while let record = try reader.next() {
            guard let (second, device) = key(record.line), (0...TimeIndexFile.maxSecond).contains(second) else { continue }
            let deviceKey = Array(device)
            if inFile(deviceKey, second) { continue }
            let before = pending[deviceKey]?.runs.count ?? 0
            pending[deviceKey, default: TimeRuns()].insert(second)
            pendingRuns += (pending[deviceKey]?.runs.count ?? 0) - before
            if pendingRuns >= Self.rebuildRuns {
                try write(merging: pending, through: record.sequence + 1)
                pending.removeAll()
                pendingRuns = 0
            }
        }
        // Nothing known and nothing read: no file yet (the next logger reads the records).
        // A file refused (`rebuilt`) is replaced even then: left, it would be trusted once
        // the journal grows past its `through` again (journal-sim seed 213: an index saved
        // over a commit whose segment name a power cut took back, then new records at
        // those numbers, missing from it).
        if file == nil && pending.isEmpty && rebuilt == nil { return }
        try write(merging: pending, through: end)
    }

    /// Why the file disagrees with the journal's records below its `through`, or nil. Each
    /// second must be accounted for by a record: a point of its device there (at most one
    /// second per point, within the span of that device's points), or a record no longer
    /// there (sent and removed, moved to a stick), whose second cannot be checked: the
    /// seconds not accounted for by points, over every device, are at most the records
    /// gone. So a forged file cannot claim seconds for a device beyond its records.
    private func disagreement() throws(JournalError) -> String? {
        guard let file else { return nil }
        var points: [[UInt8]: (low: Int64, high: Int64, count: Int64)] = [:]
        var present: UInt64 = 0
        let reader = try journal.records(from: 0)
        while let record = try reader.next(), record.sequence < file.through {
            present += 1
            guard let (second, device) = key(record.line) else { continue }
            let deviceKey = Array(device)
            if let known = points[deviceKey] {
                points[deviceKey] = (min(known.low, second), max(known.high, second), known.count + 1)
            } else {
                guard points.count < TimeIndexFile.maxDevices else { return "more devices than the journal holds" }
                points[deviceKey] = (second, second, 1)
            }
        }
        let gone = Int64(file.through - min(present, file.through))
        var unaccounted: Int64 = 0
        for (index, section) in file.sections.enumerated() {
            let mine = points[section.key] ?? (low: 1, high: 0, count: 0)
            let (seconds, outside) = try Self.count(file.runCursor(of: index), outside: mine.low...max(mine.low, mine.high),
                                                   empty: mine.count == 0)
            unaccounted += seconds - min(seconds - outside, mine.count)
            if unaccounted > gone {
                let name = String(decoding: section.key, as: UTF8.self)
                return "holds \(Plural.count(seconds, "second")) of device \"\(name)\", more than its "
                    + "\(Plural.count(mine.count, "point")) in the journal\(gone > 0 ? " and the \(Plural.count(gone, "record")) no longer there" : "") account for"
            }
        }
        return nil
    }

    /// A section's seconds, and how many of them lie outside `span` (all when `empty`).
    private static func count(_ runs: TimeIndexFile.RunCursor, outside span: ClosedRange<Int64>,
                              empty: Bool) throws(JournalError) -> (seconds: Int64, outside: Int64) {
        var cursor = runs
        var seconds: Int64 = 0, outside: Int64 = 0
        while let run = try cursor.next() {
            seconds += run.count
            if empty { outside += run.count; continue }
            // Seconds before the span: indices 0 ..< k with start + k * step >= low.
            if run.start < span.lowerBound {
                outside += min(run.count, (span.lowerBound - 1 - run.start) / run.step + 1)
            }
            // Seconds after it: from the first index past `high`.
            if run.last > span.upperBound {
                let within = run.start > span.upperBound ? 0 : (span.upperBound - run.start) / run.step + 1
                outside += run.count - within
            }
        }
        return (seconds, outside)
    }

    private func rebuild(because reason: String) throws(JournalError) {
        rebuilt = reason
        opened = nil
        written = false
        try catchUp(to: try journal.endSequence())
    }
}

extension Journal {
    /// The time index, caught up with every record in the journal: `state/times` brought
    /// up to date from the records appended since it was written, or rebuilt from all
    /// records when missing or not valid (see ``JournalTimeIndex/rebuilt``). `key` reads
    /// a record's point second and device key (nil for records that are not points).
    public func timeIndex(key: @escaping JournalTimeIndex.Key) throws(JournalError) -> JournalTimeIndex {
        let index = JournalTimeIndex(journal: self, key: key)
        try index.load()
        return index
    }

    /// Forgets the time index: the next logger rebuilds it from the records (after
    /// records were set aside, so that their points can be imported again).
    func forgetTimeIndex() throws(JournalError) {
        try fs.remove(statePath(of: JournalTimeIndex.stateName))
    }
}

/// Writes a time index file: the runs of an open file merged with runs held in memory,
/// device by device in key order, a piece at a time.
enum TimeIndexWriter {
    /// A non-negative number in decimal, without a String per number (millions of runs).
    static func appendDecimal(_ value: Int64, to buffer: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var rest = UInt64(value)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { bytes in
            repeat {
                bytes[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            buffer.append(contentsOf: bytes[(20 - count)...])
        }
    }

    static func write(_ path: String, in fs: any FileSystem, through: UInt64, file: TimeIndexFile?, extra: [[UInt8]: TimeRuns]) throws(JournalError) {
        let output = try FileReplacement(path, in: fs)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        func flush(_ force: Bool) throws(JournalError) {
            guard force || buffer.count >= 1 << 16 else { return }
            try output.write(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
        buffer += Array("overland-times 2 through \(through)\n".utf8)
        let fileKeys = file.map { $0.sections.map(\.key) } ?? []
        let keys = Set(fileKeys).union(extra.keys).sorted { $0.lexicographicallyPrecedes($1) }
        for key in keys {
            let section = file?.section(of: key)
            let runs = extra[key]?.runs ?? []
            guard section != nil || !runs.isEmpty else { continue }
            buffer += TimeIndexFile.devicePrefix + key + [UInt8(ascii: "\""), UInt8(ascii: "\n")]
            // The file's runs are read as they are merged, never held whole.
            var fromFile = file.flatMap { file in section.map { file.runCursor(of: $0) } }
            var extraIndex = 0
            var previous: Int64 = 0
            try TimeRunJoiner.merge({ () throws(JournalError) -> TimeRun? in
                try fromFile?.next()
            }, {
                defer { extraIndex += 1 }
                return extraIndex < runs.count ? runs[extraIndex] : nil
            }, emit: { run throws(JournalError) in
                appendDecimal(run.start - previous, to: &buffer)
                buffer.append(UInt8(ascii: " "))
                appendDecimal(run.step, to: &buffer)
                buffer.append(UInt8(ascii: " "))
                appendDecimal(run.count, to: &buffer)
                buffer.append(UInt8(ascii: "\n"))
                previous = run.start
                try flush(false)
            })
        }
        try flush(true)
        try output.commit()
    }
}
