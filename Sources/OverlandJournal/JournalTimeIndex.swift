/// Which whole seconds the journal holds a location point for, ever: how `overland-log`
/// knows that a fix is already logged (journal-format.md, "The time index").
///
/// The seconds are kept as runs of arithmetic sequences (first second, step, count), sorted
/// and with disjoint spans: a drive logged every second is one run, every five seconds one
/// run too, irregular points a run each. Lookup is a binary search (no scan of the
/// journal per fix); insertion extends the last run or splits one.
///
/// It lives in `state/times`, written whole and atomically, with the sequence number up to
/// which it covers the journal's records. Reading it back catches up on the records
/// appended since (a logger killed before it saved the index): only those are read, once.
/// A missing or unreadable file is rebuilt from every record, once. Sent and removed
/// segments stay in the index: their points were logged, so importing them again adds
/// nothing, which is what a user re-importing a capture expects.
public struct JournalTimeIndex: Sendable, Equatable {
    /// One arithmetic run of seconds.
    struct Run: Sendable, Equatable {
        var start: Int64
        var step: Int64
        var count: Int64
        var last: Int64 { start + step * (count - 1) }
        func contains(_ t: Int64) -> Bool { t >= start && t <= last && (t - start) % step == 0 }
    }

    private(set) var runs: [Run] = []
    /// The journal's end sequence number when the index last covered every record.
    public private(set) var through: UInt64 = 0

    /// The name of the state file.
    public static let stateName = "times"
    /// The largest index file read back (a run costs about 20 bytes: 3 million runs).
    public static let maxFileBytes = 64 << 20

    public init() {}

    /// The number of seconds held.
    public var count: Int64 { runs.reduce(0) { $0 + $1.count } }
    /// The earliest and latest second held.
    public var earliest: Int64? { runs.first?.start }
    public var latest: Int64? { runs.map(\.last).max() }

    /// Whether `second` is held.
    public func contains(_ second: Int64) -> Bool {
        guard let index = runIndex(atOrBefore: second) else { return false }
        return runs[index].contains(second)
    }

    /// Adds `second`; false when it was already held.
    @discardableResult
    public mutating func insert(_ second: Int64) -> Bool {
        guard let index = runIndex(atOrBefore: second) else {
            runs.insert(Run(start: second, step: 1, count: 1), at: 0)
            return true
        }
        var run = runs[index]
        if run.contains(second) { return false }
        let nextStart = index + 1 < runs.count ? runs[index + 1].start : Int64.max
        if second > run.last {
            // After the run: extend it when the step fits (or set the step of a single).
            if run.count == 1 {
                run.step = second - run.start
                run.count = 2
                runs[index] = run
            } else if second == run.last + run.step {
                runs[index].count += 1
            } else {
                runs.insert(Run(start: second, step: 1, count: 1), at: index + 1)
            }
            _ = nextStart
            return true
        }
        // Inside the run's span but not on its step: split it around the second.
        let before = (second - run.start) / run.step + 1
        let left = Run(start: run.start, step: run.step, count: before)
        let right = Run(start: run.start + before * run.step, step: run.step, count: run.count - before)
        runs.replaceSubrange(index...index, with: [left, Run(start: second, step: 1, count: 1), right])
        return true
    }

    /// Notes that the index covers the journal's records up to (not including) `sequence`.
    public mutating func cover(through sequence: UInt64) {
        through = max(through, sequence)
    }

    private func runIndex(atOrBefore second: Int64) -> Int? {
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].start <= second { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    // MARK: - The file

    /// The file's text: a header line, then one line per run, `start step count`, the
    /// start as the difference from the previous run's (the first from 0).
    public func serialized() -> [UInt8] {
        var text = "overland-times 1 through \(through)\n"
        var previous: Int64 = 0
        for run in runs {
            text += "\(run.start - previous) \(run.step) \(run.count)\n"
            previous = run.start
        }
        return Array(text.utf8)
    }

    /// Parses a file written by ``serialized()``; nil when it is not one.
    public static func parse(_ bytes: [UInt8]) -> JournalTimeIndex? {
        var index = JournalTimeIndex()
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.last?.isEmpty == true else { return nil }
        lines.removeLast()
        guard let header = lines.first else { return nil }
        let fields = String(decoding: header, as: UTF8.self).split(separator: " ")
        guard fields.count == 4, fields[0] == "overland-times", fields[1] == "1", fields[2] == "through",
              let through = UInt64(fields[3]) else { return nil }
        index.through = through
        var previous: Int64 = 0
        for line in lines.dropFirst() {
            let numbers = line.split(separator: UInt8(ascii: " ")).map { Int64(String(decoding: $0, as: UTF8.self)) }
            guard numbers.count == 3, let delta = numbers[0], let step = numbers[1], let count = numbers[2],
                  step > 0, count > 0, delta >= 0 || index.runs.isEmpty else { return nil }
            let (start, overflow) = previous.addingReportingOverflow(delta)
            guard !overflow, step <= Int64.max / count else { return nil }
            let run = Run(start: start, step: step, count: count)
            if let last = index.runs.last, run.start <= last.last { return nil }
            index.runs.append(run)
            previous = start
        }
        return index
    }
}

extension Journal {
    /// The time index, caught up with every record in the journal: read from
    /// `state/times` and brought up to date from the records appended since it was
    /// written, or rebuilt from all records when missing or damaged. `timestamp` reads a
    /// record's point time (nil for records that are not location points).
    public func timeIndex(timestamp: (ArraySlice<UInt8>) -> Int64?) throws(JournalError) -> JournalTimeIndex {
        var index = JournalTimeIndex()
        let path = statePath(of: JournalTimeIndex.stateName)
        if FileSystem.kind(path) == .file, let bytes = try? FileSystem.readFile(path, limit: JournalTimeIndex.maxFileBytes),
           let saved = JournalTimeIndex.parse(bytes) {
            index = saved
        }
        let end = try endSequence()
        if index.through > end { index = JournalTimeIndex() } // not this journal's (or it was cut back)
        if index.through < end {
            let reader = try records(from: index.through)
            while let record = try reader.next() {
                if let second = timestamp(record.line) { index.insert(second) }
            }
        }
        index.cover(through: end)
        return index
    }

    /// Saves the time index (see ``timeIndex(timestamp:)``), covering records before `through`.
    public func saveTimeIndex(_ index: JournalTimeIndex) throws(JournalError) {
        try FileSystem.makeDirectory(statePath)
        try FileSystem.replaceAtomically(statePath(of: JournalTimeIndex.stateName), with: index.serialized())
    }
}
