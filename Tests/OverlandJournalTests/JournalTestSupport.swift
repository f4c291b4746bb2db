import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

extension TemporaryDirectory {
    /// Where a test's journal goes (not created: `Journal(create:)` makes it).
    var journal: String { path + "/journal" }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Collects the issues a journal operation reports.
final class IssueLog: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [JournalIssue] = []

    var issues: [JournalIssue] { lock.withLock { collected } }

    var handler: JournalIssueHandler {
        { [self] issue in lock.withLock { collected.append(issue) } }
    }

    func of(_ kind: JournalIssue.Kind) -> [JournalIssue] { issues.filter { $0.kind == kind } }
}

// MARK: - Records

/// A small record line, unique per writer and number.
func recordLine(_ writer: String, _ number: Int, pad: Int = 0) -> String {
    "{\"writer\":\"\(writer)\",\"n\":\(number),\"pad\":\"\(String(repeating: "p", count: pad))\"}"
}

/// A record that compresses badly (pseudo-random hex), for filling segments quickly.
func noisyRecordLine(_ number: Int, bytes: Int, seed: UInt64 = 1) -> String {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(number)
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes)
    for _ in 0..<bytes {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        text.append(digits[Int(state & 15)])
    }
    return "{\"n\":\(number),\"noise\":\"\(String(decoding: text, as: UTF8.self))\"}"
}

/// Appends `lines` and commits them as one commit; returns the appender for more.
@discardableResult
func commit(_ lines: [String], to appender: JournalAppender, wallClock: Int64 = Journal.currentTime()) throws -> Int {
    for line in lines { try appender.append(Array(line.utf8)) }
    return try appender.commit(wallClock: wallClock)
}

struct ReadRecord: Equatable, CustomStringConvertible {
    var sequence: UInt64
    var line: String
    var description: String { "\(sequence) \(line)" }
}

/// Every record from `from` on, through the public reader.
func readAll(_ journal: Journal, from: UInt64 = 0, onIssue: JournalIssueHandler? = nil) throws -> [ReadRecord] {
    let reader = try journal.records(from: from, onIssue: onIssue)
    var records: [ReadRecord] = []
    while let record = try reader.next() {
        records.append(ReadRecord(sequence: record.sequence, line: String(decoding: record.line, as: UTF8.self)))
    }
    return records
}

func expected(_ lines: [String], from first: UInt64 = 0) -> [ReadRecord] {
    lines.enumerated().map { ReadRecord(sequence: first + UInt64($0.offset), line: $0.element) }
}

// MARK: - Files

enum Files {
    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func append(_ bytes: [UInt8], to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }

    static func size(_ path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_size) : -1
    }

    static func truncate(_ path: String, to length: Int) throws {
        guard Glibc.truncate(path, off_t(length)) == 0 else { throw TestFailure("truncate \(path): errno \(errno)") }
    }

    /// Permission bits and file type from lstat.
    static func mode(_ path: String) -> (type: mode_t, permissions: mode_t)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT, info.st_mode & 0o7777)
    }

    static func list(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Copies a directory tree (to give each variant of a test its own journal).
    static func copyTree(_ source: String, to destination: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    static func symlink(_ target: String, at path: String) throws {
        guard Glibc.symlink(target, path) == 0 else { throw TestFailure("symlink \(path): errno \(errno)") }
    }

    /// Every path under `root` (itself included), with lstat's type and permission bits.
    static func walk(_ root: String) -> [(path: String, type: mode_t, permissions: mode_t)] {
        var result: [(String, mode_t, mode_t)] = []
        func visit(_ path: String) {
            guard let mode = mode(path) else { return }
            result.append((path, mode.type, mode.permissions))
            if mode.type == S_IFDIR {
                for name in list(path) { visit(path + "/" + name) }
            }
        }
        visit(root)
        return result
    }
}

func segmentPaths(_ journal: Journal) throws -> [String] {
    try journal.segments().map { journal.path + "/segments/" + $0.fileName }
}

// MARK: - Members, from the spec (journal-format.md section 5), not from the library

/// Where one member lies in a segment file, read from its header's member size field.
struct MemberSpan {
    var offset: Int
    var size: Int
    var kind: UInt8
    var firstSequence: UInt64
    var recordCount: UInt32
    var range: Range<Int> { offset..<(offset + size) }
    var deflateRange: Range<Int> { (offset + 54)..<(offset + size - 8) }
}

func le<T: FixedWidthInteger>(_ bytes: [UInt8], _ offset: Int, as: T.Type) -> T {
    var value = T.zero
    for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
    return value
}

/// Walks a well-formed segment by the member size field.
func memberSpans(_ bytes: [UInt8]) -> [MemberSpan] {
    var spans: [MemberSpan] = []
    var offset = 0
    while offset + 54 <= bytes.count {
        let size = Int(le(bytes, offset + 20, as: UInt32.self))
        guard size >= 64, offset + size <= bytes.count else { break }
        spans.append(MemberSpan(offset: offset, size: size, kind: bytes[offset + 17],
                                firstSequence: le(bytes, offset + 24, as: UInt64.self),
                                recordCount: le(bytes, offset + 32, as: UInt32.self)))
        offset += size
    }
    return spans
}

/// CRC-32 (IEEE, as gzip uses), written independently of the library.
func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
    }
    return ~crc
}

extension Array where Element == UInt8 {
    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        for index in 0..<MemoryLayout<T>.size { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}

/// Builds a member byte by byte as section 5 lays it out, around given raw deflate data,
/// with whatever CRC and ISIZE the caller claims.
func specMember(kind: UInt8 = 1, firstSequence: UInt64, recordCount: UInt32, journalID: [UInt8],
                deflate: [UInt8], crc: UInt32, isize: UInt32, mtime: UInt32 = 0) -> [UInt8] {
    var member: [UInt8] = [0x1f, 0x8b, 0x08, 0x06]
    member.appendLE(mtime)
    member += [0x00, 0xff]
    member.appendLE(UInt16(40))
    member += [0x4f, 0x4a]
    member.appendLE(UInt16(36))
    member += [1, kind, 0, 0]
    member.appendLE(UInt32(54 + deflate.count + 8))
    member.appendLE(firstSequence)
    member.appendLE(recordCount)
    member += journalID
    member.appendLE(UInt16(truncatingIfNeeded: crc32(member)))
    member += deflate
    member.appendLE(crc)
    member.appendLE(isize)
    return member
}

// MARK: - External tools

struct ToolOutput {
    var status: Int32
    var stdout: Data
    var stderr: String
}

/// Runs a system tool (gzip, zcat) to its end.
func runTool(_ executable: String, _ arguments: [String]) throws -> ToolOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both to the end before waiting: a full pipe would block the tool.
    let group = DispatchGroup()
    nonisolated(unsafe) var errorData = Data()
    group.enter()
    DispatchQueue.global().async {
        errorData = errors.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ToolOutput(status: process.terminationStatus, stdout: outputData,
                      stderr: String(decoding: errorData, as: UTF8.self))
}

func gzipTest(_ path: String) throws -> ToolOutput { try runTool("/bin/gzip", ["-t", path]) }

/// The record lines `zcat` prints for a segment file.
func zcatLines(_ path: String) throws -> [String] {
    let result = try runTool("/bin/zcat", [path])
    guard result.status == 0 else { throw TestFailure("zcat \(path) exited \(result.status): \(result.stderr)") }
    var text = String(decoding: result.stdout, as: UTF8.self)
    guard text.isEmpty || text.hasSuffix("\n") else { throw TestFailure("zcat output does not end with a newline") }
    if text.hasSuffix("\n") { text.removeLast() }
    return text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

func isJSONObject(_ line: String) -> Bool {
    guard let object = try? JSONScan.value(line.utf8) else { return false }
    return object is [String: Any]
}

/// Flips one bit of a file in place.
func flipBit(_ path: String, at offset: Int, bit: Int = 0) throws {
    var bytes = try Files.bytes(path)
    bytes[offset] ^= UInt8(1 << bit)
    try Files.write(bytes, to: path)
}

/// SHA-free content fingerprint: the bytes themselves are small enough to compare.
func fingerprint(_ path: String) throws -> (size: Int, crc: UInt32, bytes: [UInt8]) {
    let bytes = try Files.bytes(path)
    return (bytes.count, crc32(bytes), bytes)
}
