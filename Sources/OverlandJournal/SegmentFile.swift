#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Bytes of a segment that `SegmentLayout` walks: a whole file in memory, or a file read in
/// pieces (`SegmentFile`). `withBytes` hands out `range` clamped to `count`; a body must not
/// call `withBytes` again (a file's window may move).
protocol SegmentBytes {
    var count: Int { get }
    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R
}

extension UnsafeRawBufferPointer: SegmentBytes {
    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(rebasing: self[Swift.min(range.lowerBound, count)..<Swift.min(range.upperBound, count)]))
    }
}

/// A segment file read a piece at a time: its layout is walked through a window of
/// `windowBytes`, a member at a time is read for inflating. Whatever the file's size,
/// memory stays at the window plus one member (at most `Member.maxMemberBytes`): a 255 MiB
/// segment from a hostile stick costs what a small one does. The size is taken once, when
/// opened (under the shared lock for the newest segment, so that it ends at a commit).
final class SegmentFile: SegmentBytes {
    static let windowBytes = 1 << 20

    let path: String
    let count: Int
    private let fs: any FileSystem
    private let fd: Int32
    /// The window's storage, allocated once (its first `windowCount` bytes are the file's
    /// from `windowStart`).
    private var window: [UInt8] = []
    private var windowStart = 0
    private var windowCount = 0
    /// The first read that failed, if any (bytes past it read as absent: truncated).
    private(set) var readError: JournalError?

    /// Opens the segment `name` of `journal`; with `committed`, sizes it under the shared
    /// lock. A file larger than `Journal.maxSegmentFileBytes` is refused before any read.
    init(_ journal: Journal, _ name: SegmentName, committed: Bool) throws(JournalError) {
        let path = journal.segmentPath(name)
        let fs = journal.fileSystem
        let fd = try fs.openForReading(path)
        var size = 0
        do {
            if committed, let lock = journal.lock {
                size = try lock.withLock(.shared) { () throws(JournalError) in try fs.size(fd, path: path) }
            } else {
                size = try fs.size(fd, path: path)
            }
        } catch {
            fs.close(fd)
            throw error
        }
        guard size <= Journal.maxSegmentFileBytes else {
            fs.close(fd)
            throw .untrusted(path: path, reason: "larger than \(Journal.maxSegmentFileBytes) bytes")
        }
        self.path = path
        self.fd = fd
        self.fs = fs
        count = size
    }

    deinit { fs.close(fd) }

    /// The open file (for `posix_fadvise`).
    var descriptor: Int32 { fd }

    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let lower = min(range.lowerBound, count)
        let upper = min(range.upperBound, count)
        if lower < windowStart || upper > windowStart + windowCount {
            fill(from: lower, count: max(upper - lower, Self.windowBytes))
        }
        return window.withUnsafeBytes { all in
            let start = min(lower - windowStart, windowCount)
            let end = max(start, min(upper - windowStart, windowCount))
            return body(UnsafeRawBufferPointer(rebasing: all[start..<end]))
        }
    }

    /// Reads the member at `member` whole into `buffer` (replacing its contents).
    func readMember(_ member: SegmentLayout.Located, into buffer: inout [UInt8]) throws(JournalError) {
        let wanted = min(member.header.memberSize, max(0, count - member.offset))
        if buffer.count != wanted { buffer = [UInt8](repeating: 0, count: wanted) }
        let got = read(at: member.offset, into: &buffer, count: wanted)
        if let readError { throw readError }
        if got < wanted { buffer.removeSubrange(got...) }
    }

    /// Writes the bytes of `range` to `fd` (a file at `path`), a window at a time.
    func copy(_ range: Range<Int>, to fd: Int32, path: String) throws(JournalError) {
        var start = min(range.lowerBound, count)
        let end = min(range.upperBound, count)
        while start < end {
            let stop = min(end, start + Self.windowBytes)
            let written = withBytes(start..<stop) { chunk in
                Result { () throws(JournalError) in try fs.writeAll(fd, chunk, path: path) }
            }
            if let readError { throw readError }
            try written.get()
            start = stop
        }
    }

    private func fill(from offset: Int, count wanted: Int) {
        let length = max(0, min(wanted, count - offset))
        if window.count < length { window = [UInt8](repeating: 0, count: length) }
        windowStart = offset
        windowCount = read(at: offset, into: &window, count: length)
    }

    private func read(at offset: Int, into buffer: inout [UInt8], count wanted: Int) -> Int {
        var done = 0
        while done < wanted {
            let result = buffer.withUnsafeMutableBytes { all in
                Result { () throws(JournalError) in
                    try fs.read(fd, at: offset + done, into: UnsafeMutableRawBufferPointer(rebasing: all[done..<wanted]), path: path)
                }
            }
            switch result {
            case .success(0): return done
            case .success(let got): done += got
            case .failure(let error):
                if readError == nil { readError = error }
                return done
            }
        }
        return done
    }
}

extension SegmentLayout {
    /// The layout of `file`; a read that failed is thrown, not taken for damage.
    init(reading file: SegmentFile, name: SegmentName, journalID: JournalID) throws(JournalError) {
        self.init(walking: file, name: name, journalID: journalID)
        if let error = file.readError { throw error }
    }
}
