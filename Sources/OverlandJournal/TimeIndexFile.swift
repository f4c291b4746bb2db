import OverlandJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `state/times` on disk (journal-format.md, "The time index"): checked line by line
/// against the grammar when opened, then read a block of runs at a time, so that memory
/// does not grow with the file. What stays in memory is one entry per device and one
/// checkpoint per `checkpointRuns` runs (the file offset and the start the next delta is
/// counted from).
final class TimeIndexFile {
    struct Section {
        var key: [UInt8]
        var checkpoints: Range<Int>
        /// The file offset after the section's last run line.
        var end: Int
        var earliest: Int64
        var latest: Int64
    }

    struct Checkpoint {
        var offset: Int
        /// The start the run at `offset` counts its delta from.
        var base: Int64
        var start: Int64
    }

    /// A file that is not a time index of this version, with the reason (for one line).
    struct Invalid: Error { var reason: String }

    static let header = Array("overland-times 2 through ".utf8)
    static let devicePrefix = Array("device \"".utf8)
    /// The last second a timestamp (`9999-12-31T23:59:59Z`) can name.
    static let maxSecond: Int64 = 253_402_300_799
    static let maxFileBytes = 256 << 20
    static let maxDevices = 4096
    static let maxKeyBytes = 512
    static let maxLineBytes = 1024
    static let checkpointRuns = 256

    let fs: any FileSystem
    let fd: Int32
    let path: String
    let through: UInt64
    let sections: [Section]
    private let checkpoints: [Checkpoint]
    private var cached: (checkpoint: Int, runs: TimeRuns)?

    private init(fs: any FileSystem, fd: Int32, path: String, through: UInt64, sections: [Section], checkpoints: [Checkpoint]) {
        self.fs = fs
        self.fd = fd
        self.path = path
        self.through = through
        self.sections = sections
        self.checkpoints = checkpoints
    }

    deinit { fs.close(fd) }

    /// The file at `path`, checked; nil when there is none; `Invalid` when it breaks the
    /// grammar or its own rules (sorted, disjoint, within the seconds a timestamp names,
    /// no more seconds than the records it claims to cover).
    static func open(_ path: String, in fs: any FileSystem) throws(JournalError) -> Result<TimeIndexFile, Invalid>? {
        switch fs.kind(path) {
        case .missing: return nil
        case .file: break
        case .symlink: return .failure(Invalid(reason: "is a symbolic link"))
        case .directory, .other: return .failure(Invalid(reason: "not a regular file"))
        }
        let fd: Int32
        do { fd = try fs.openForReading(path) } catch {
            if case .untrusted(_, let reason) = error { return .failure(Invalid(reason: reason)) }
            throw error
        }
        do {
            let size = try fs.size(fd, path: path)
            guard size <= maxFileBytes else {
                fs.close(fd)
                return .failure(Invalid(reason: "larger than \(maxFileBytes) bytes"))
            }
            var sections: [Section] = []
            var checkpoints: [Checkpoint] = []
            var reader = LineReader(fs: fs, fd: fd, path: path, from: 0)
            let through = try scan(&reader, sections: &sections, checkpoints: &checkpoints)
            return .success(TimeIndexFile(fs: fs, fd: fd, path: path, through: through, sections: sections, checkpoints: checkpoints))
        } catch let invalid as Invalid {
            fs.close(fd)
            return .failure(invalid)
        } catch let error as JournalError {
            fs.close(fd)
            throw error
        } catch {
            fs.close(fd)
            return .failure(Invalid(reason: "\(error)"))
        }
    }

    /// Checks every line; returns `through`.
    private static func scan(_ reader: inout LineReader, sections: inout [Section], checkpoints: inout [Checkpoint]) throws -> UInt64 {
        guard let (_, first) = try reader.nextLine() else { throw Invalid(reason: "empty") }
        guard first.starts(with: header), let through = number(first.dropFirst(header.count), allowZero: true),
              through <= Int64(SequenceNumber.limit) else {
            throw Invalid(reason: "line 1: not 'overland-times 2 through N'")
        }
        var lineNumber = 1
        var total: Int64 = 0
        var section: Section?
        var previousStart: Int64 = 0
        var previousLast: Int64 = -1
        var runsInSection = 0
        func finishSection() throws {
            guard let done = section else { return }
            guard runsInSection > 0 else { throw Invalid(reason: "line \(lineNumber): a device without seconds") }
            sections.append(done)
        }
        while let (offset, line) = try reader.nextLine() {
            lineNumber += 1
            if line.starts(with: devicePrefix) {
                try finishSection()
                let key = Array(line.dropFirst(devicePrefix.count).dropLast())
                guard line.count > devicePrefix.count, line.last == UInt8(ascii: "\""), isCanonicalKey(key) else {
                    throw Invalid(reason: "line \(lineNumber): not 'device \"ID\"' with the id as a JSON string writes it")
                }
                if let last = sections.last, !last.key.lexicographicallyPrecedes(key) {
                    throw Invalid(reason: "line \(lineNumber): devices out of order or repeated")
                }
                guard sections.count < maxDevices else { throw Invalid(reason: "more than \(maxDevices) devices") }
                section = Section(key: key, checkpoints: checkpoints.count..<checkpoints.count, end: 0, earliest: 0, latest: 0)
                previousStart = 0
                previousLast = -1
                runsInSection = 0
                continue
            }
            guard section != nil else { throw Invalid(reason: "line \(lineNumber): seconds before a 'device' line") }
            guard let run = parseRun(line, base: previousStart) else {
                throw Invalid(reason: "line \(lineNumber): not 'DELTA STEP COUNT' in plain decimal within the seconds a timestamp names")
            }
            guard run.start > previousLast else { throw Invalid(reason: "line \(lineNumber): overlaps the run before it") }
            let (sum, overflow) = total.addingReportingOverflow(run.count)
            guard !overflow, sum <= Int64(through) else {
                throw Invalid(reason: "line \(lineNumber): more seconds than the \(through) records it covers")
            }
            total = sum
            if runsInSection % checkpointRuns == 0 {
                checkpoints.append(Checkpoint(offset: offset, base: previousStart, start: run.start))
            }
            if runsInSection == 0 { section!.earliest = run.start }
            runsInSection += 1
            section!.latest = run.last
            section!.end = reader.offset
            section!.checkpoints = section!.checkpoints.lowerBound..<checkpoints.count
            previousStart = run.start
            previousLast = run.last
        }
        try finishSection()
        return UInt64(through)
    }

    /// A device id's key as the file holds it: the bytes a JSON string of it holds between
    /// its quotes, escaped exactly as the writers escape it (one spelling per id).
    static func isCanonicalKey(_ key: [UInt8]) -> Bool {
        guard key.count <= maxKeyBytes, case .string(let text)? = try? JSONParser.parse([UInt8(ascii: "\"")] + key + [UInt8(ascii: "\"")])
        else { return false }
        var writer = JSONWriter()
        writer.appendString(text)
        return writer.bytes.dropFirst().dropLast().elementsEqual(key)
    }

    /// `DELTA STEP COUNT`: plain decimal (no sign, no leading zero), STEP and COUNT at
    /// least 1, every second from `base + DELTA` within 0 to `maxSecond`.
    static func parseRun(_ line: ArraySlice<UInt8>, base: Int64) -> TimeRun? {
        // Three fields split by single spaces, without an array per line (millions of lines).
        guard let firstSpace = line.firstIndex(of: UInt8(ascii: " ")),
              let secondSpace = line[(firstSpace + 1)...].firstIndex(of: UInt8(ascii: " ")),
              let delta = number(line[..<firstSpace], allowZero: true),
              let step = number(line[(firstSpace + 1)..<secondSpace], allowZero: false),
              let count = number(line[(secondSpace + 1)...], allowZero: false) else { return nil }
        let (start, overflow) = base.addingReportingOverflow(delta)
        guard !overflow, start <= maxSecond else { return nil }
        let (span, spanOverflow) = step.multipliedReportingOverflow(by: count - 1)
        guard !spanOverflow, span <= maxSecond - start else { return nil }
        return TimeRun(start: start, step: step, count: count)
    }

    /// `0` or `[1-9][0-9]*`, at most `maxSecond`.
    static func number(_ digits: ArraySlice<UInt8>, allowZero: Bool) -> Int64? {
        guard let first = digits.first, digits.count <= 16 else { return nil }
        if first == UInt8(ascii: "0") { return allowZero && digits.count == 1 ? 0 : nil }
        var value: Int64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value <= max(maxSecond, Int64(SequenceNumber.limit)) ? value : nil
    }

    // MARK: - Lookups

    /// The section of `key`, by binary search.
    func section(of key: [UInt8]) -> Int? {
        var low = 0, high = sections.count
        while low < high {
            let middle = (low + high) / 2
            if sections[middle].key.lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return low < sections.count && sections[low].key == key ? low : nil
    }

    func contains(section index: Int, _ second: Int64) throws(JournalError) -> Bool {
        let section = sections[index]
        guard second >= section.earliest, second <= section.latest else { return false }
        // The last checkpoint of the section starting at or before `second`.
        var low = section.checkpoints.lowerBound, high = section.checkpoints.upperBound
        while low < high {
            let middle = (low + high) / 2
            if checkpoints[middle].start <= second { low = middle + 1 } else { high = middle }
        }
        let checkpoint = low - 1
        guard checkpoint >= section.checkpoints.lowerBound else { return false }
        if cached?.checkpoint != checkpoint {
            let end = checkpoint + 1 < section.checkpoints.upperBound ? checkpoints[checkpoint + 1].offset : section.end
            var block = TimeRuns()
            var runs: [TimeRun] = []
            var cursor = RunCursor(reader: LineReader(fs: fs, fd: fd, path: path, from: checkpoints[checkpoint].offset), end: end,
                                   base: checkpoints[checkpoint].base)
            while let run = try cursor.next() { runs.append(run) }
            block = TimeRuns(runs: runs)
            cached = (checkpoint, block)
        }
        return cached!.runs.contains(second)
    }

    /// The runs of a section one after another (for a merge into a new file).
    struct RunCursor {
        fileprivate var reader: LineReader
        fileprivate let end: Int
        fileprivate var base: Int64

        mutating func next() throws(JournalError) -> TimeRun? {
            guard reader.offset < end else { return nil }
            let line: ArraySlice<UInt8>
            do {
                guard let (_, next) = try reader.nextLine() else { return nil }
                line = next
            } catch let error as JournalError { throw error } catch { throw .untrusted(path: reader.path, reason: "changed while read") }
            guard let run = TimeIndexFile.parseRun(line, base: base) else { throw .untrusted(path: reader.path, reason: "changed while read") }
            base = run.start
            return run
        }
    }

    func runCursor(of index: Int) -> RunCursor {
        let section = sections[index]
        let first = section.checkpoints.lowerBound
        return RunCursor(reader: LineReader(fs: fs, fd: fd, path: path, from: checkpoints[first].offset), end: section.end,
                         base: checkpoints[first].base)
    }

    /// Whether `path` still names this file (not replaced or removed since it was opened).
    func isStill(at path: String) -> Bool {
        guard let mine = try? fs.identity(fd, path: self.path), let theirs = fs.status(path) else { return false }
        return mine == theirs.identity
    }
}

/// Lines of a file from an offset on, read in pieces of 64 KiB.
struct LineReader {
    let fs: any FileSystem
    let fd: Int32
    let path: String
    /// The file offset of the next line.
    private(set) var offset: Int
    private var buffer: [UInt8] = []
    private var position = 0
    private var bufferOffset: Int
    private var atEnd = false

    init(fs: any FileSystem, fd: Int32, path: String, from offset: Int) {
        self.fs = fs
        self.fd = fd
        self.path = path
        self.offset = offset
        bufferOffset = offset
    }

    /// The next line without its newline, and its offset; nil at the end. A last line
    /// without a newline, or a line over `TimeIndexFile.maxLineBytes`, is `Invalid`.
    mutating func nextLine() throws -> (Int, ArraySlice<UInt8>)? {
        while true {
            if let newline = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[position..<newline]
                let start = offset
                guard line.count <= TimeIndexFile.maxLineBytes else {
                    throw TimeIndexFile.Invalid(reason: "a line longer than \(TimeIndexFile.maxLineBytes) bytes")
                }
                position = newline + 1
                offset = bufferOffset + position
                return (start, line)
            }
            if atEnd {
                guard position == buffer.count else { throw TimeIndexFile.Invalid(reason: "the last line has no newline") }
                return nil
            }
            guard buffer.count - position <= TimeIndexFile.maxLineBytes else {
                throw TimeIndexFile.Invalid(reason: "a line longer than \(TimeIndexFile.maxLineBytes) bytes")
            }
            buffer.removeSubrange(0..<position)
            bufferOffset += position
            position = 0
            let piece = try fs.read(fd, at: bufferOffset + buffer.count, count: 65_536, path: path)
            if piece.isEmpty { atEnd = true }
            buffer += piece
        }
    }
}
