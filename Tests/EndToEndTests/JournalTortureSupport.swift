import TestSupport
import Foundation
import Testing
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// Helpers for the tests that drive `journal-torture` (Sources/journal-torture/main.swift).
enum Torture {
    static let runner = ToolRunner(product: "journal-torture")

    /// "committed WRITER a..<b" lines: the records the child had made durable.
    static func committed(in lines: [String]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in lines {
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "committed" else { continue }
            let bounds = parts[2].components(separatedBy: "..<")
            guard bounds.count == 2, let start = Int(bounds[0]), let end = Int(bounds[1]) else { continue }
            let writer = String(parts[1])
            #expect(start == counts[writer] ?? 0, "commits of \(writer) out of order: \(line)")
            counts[writer] = end
        }
        return counts
    }

    struct Record: Sendable {
        var sequence: UInt64
        var writer: String
        var number: Int
        var line: String
    }

    /// Reads the whole journal in-process; issues are collected, not thrown.
    static func read(_ path: String) throws -> (records: [Record], issues: [JournalIssue]) {
        let issues = IssueCollector()
        let journal = try Journal(path: path)
        let reader = try journal.records(from: 0, onIssue: issues.handler)
        var records: [Record] = []
        while let record = try reader.next() {
            let line = String(decoding: record.line, as: UTF8.self)
            records.append(try parse(line, sequence: record.sequence))
        }
        return (records, issues.issues)
    }

    /// A record line as journal-torture writes it: {"writer":W,"n":N,"pad":...}.
    static func parse(_ line: String, sequence: UInt64) throws -> Record {
        guard let object = try JSONScan.object(line.utf8),
              let writer = object["writer"] as? String, let number = object["n"] as? Int else {
            throw ToolRunnerError(description: "record \(sequence) is not a torture record: \(line)")
        }
        return Record(sequence: sequence, writer: writer, number: number, line: line)
    }

    /// What must hold after any crash: sequence numbers strictly increase; each writer's
    /// records are 0..<m exactly once and in order (commits are all or nothing), with every
    /// record it reported committed among them. Returns m per writer.
    @discardableResult
    static func check(_ records: [Record], committed: [String: Int], writers: [String]? = nil,
                      sourceLocation: SourceLocation = #_sourceLocation) -> [String: Int] {
        for (previous, next) in zip(records, records.dropFirst()) where next.sequence <= previous.sequence {
            Issue.record("sequence numbers go from \(previous.sequence) to \(next.sequence)", sourceLocation: sourceLocation)
        }
        var seen: [String: Int] = [:]
        for record in records {
            let expectedNumber = seen[record.writer] ?? 0
            if record.number != expectedNumber {
                Issue.record("record \(record.sequence) is \(record.writer) #\(record.number), expected #\(expectedNumber)",
                             sourceLocation: sourceLocation)
            }
            seen[record.writer] = max(expectedNumber, record.number + 1)
        }
        for (writer, count) in committed where (seen[writer] ?? 0) < count {
            Issue.record("\(writer) reported \(count) records committed, the journal holds \(seen[writer] ?? 0)",
                         sourceLocation: sourceLocation)
        }
        if let writers {
            #expect(Set(seen.keys).isSubset(of: Set(writers)), "unknown writers: \(seen.keys)", sourceLocation: sourceLocation)
        }
        return seen
    }

    /// Every file under the journal is 0600 and every directory 0700 (section 1).
    static func checkPermissions(_ root: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var visited = 0
        func visit(_ path: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else {
                Issue.record("cannot stat \(path)", sourceLocation: sourceLocation)
                return
            }
            visited += 1
            let permissions = info.st_mode & 0o7777
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                #expect(permissions == 0o700, "\(path) is a directory of mode \(String(permissions, radix: 8))",
                        sourceLocation: sourceLocation)
                for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] { visit(path + "/" + name) }
            case S_IFREG:
                #expect(permissions == 0o600, "\(path) is a file of mode \(String(permissions, radix: 8))",
                        sourceLocation: sourceLocation)
            default:
                Issue.record("\(path) is neither a file nor a directory", sourceLocation: sourceLocation)
            }
        }
        visit(root)
        #expect(visited >= 4, sourceLocation: sourceLocation)
    }

    /// Runs `journal-torture recover` (an appender opens and repairs) and expects success.
    static func recover(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolResult {
        let result = try runner.run(["recover", path])
        #expect(result.succeeded, "recover: \(result)", sourceLocation: sourceLocation)
        return result
    }

    /// Reads through the command as well: "SEQ LINE" lines, no issue on stderr.
    static func readWithCommand(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Record] {
        let result = try runner.run(["read", path])
        #expect(result.succeeded, "read: \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.isEmpty, "read reported: \(result.stderrText)", sourceLocation: sourceLocation)
        return try result.stdoutLines.map { line in
            guard let space = line.firstIndex(of: " "), let sequence = UInt64(line[..<space]) else {
                throw ToolRunnerError(description: "bad read line: \(line)")
            }
            return try parse(String(line[line.index(after: space)...]), sequence: sequence)
        }
    }
}

final class IssueCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [JournalIssue] = []
    var issues: [JournalIssue] { lock.withLock { collected } }
    var handler: JournalIssueHandler { { [self] issue in lock.withLock { collected.append(issue) } } }
}

/// A small deterministic generator (SplitMix64), so that a failing kill schedule repeats.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
