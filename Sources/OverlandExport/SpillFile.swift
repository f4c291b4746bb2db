#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON

/// An export could not sort in time order: a temporary file could not be made, written or
/// read back (a full or read-only temporary directory), or the journal changed between the
/// two passes (records removed under the export).
public struct ExportSortError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable { case io, journalChanged }
    public let kind: Kind
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    static func io(_ what: String, _ path: String, _ code: Int32 = errno) -> ExportSortError {
        ExportSortError(.io, "cannot \(what) the sort's temporary file '\(path)': \(SystemErrorText.of(code))")
    }
}

/// One record on its way through the time-order sort: its time, its place in the journal
/// (the tie-break: equal times keep the order logged), and its stored line.
struct SortEntry {
    var key: Int64
    var sequence: UInt64
    var line: [UInt8]

    static func < (a: SortEntry, b: SortEntry) -> Bool {
        a.key != b.key ? a.key < b.key : a.sequence < b.sequence
    }
}

/// A sorted run written to a temporary file (mode 0600): per entry its key and sequence
/// (8 bytes each, little-endian), the line's length (4 bytes) and the line.
final class SpillWriter {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws(ExportSortError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 { throw .io("create", path) }
        buffer.reserveCapacity(Self.flushBytes + 1 << 16)
    }

    deinit { if fd >= 0 { close(fd) } }

    static let flushBytes = 256 << 10

    func append(_ entry: SortEntry) throws(ExportSortError) {
        withUnsafeBytes(of: entry.key.littleEndian) { buffer.append(contentsOf: $0) }
        withUnsafeBytes(of: entry.sequence.littleEndian) { buffer.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(entry.line.count).littleEndian) { buffer.append(contentsOf: $0) }
        buffer.append(contentsOf: entry.line)
        if buffer.count >= Self.flushBytes { try flush() }
    }

    func finish() throws(ExportSortError) {
        try flush()
    }

    private func flush() throws(ExportSortError) {
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .io("write", path)
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Reads a run back, entry by entry, through a fixed buffer.
final class SpillReader {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var position = 0

    init(path: String) throws(ExportSortError) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw .io("open", path) }
    }

    deinit { if fd >= 0 { close(fd) } }

    func read() throws(ExportSortError) -> SortEntry? {
        guard let head = try take(20) else { return nil }
        func integer<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
            var value = T.zero
            for index in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(head[offset + index]) }
            return value
        }
        let length = Int(integer(UInt32.self, at: 16))
        guard let line = try take(length) else { throw ExportSortError(.io, "the sort's temporary file '\(path)' ends inside a record") }
        return SortEntry(key: integer(Int64.self, at: 0), sequence: integer(UInt64.self, at: 8), line: line)
    }

    /// The next `count` bytes; nil at a clean end of file.
    private func take(_ count: Int) throws(ExportSortError) -> [UInt8]? {
        while buffer.count - position < count {
            if position > 0 {
                buffer.removeFirst(position)
                position = 0
            }
            var chunk = [UInt8](repeating: 0, count: max(64 << 10, count))
            let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw .io("read", path)
            }
            if got == 0 {
                if buffer.isEmpty { return nil }
                throw ExportSortError(.io, "the sort's temporary file '\(path)' ends inside a record")
            }
            buffer.append(contentsOf: chunk[..<got])
        }
        defer { position += count }
        return Array(buffer[position..<position + count])
    }
}
