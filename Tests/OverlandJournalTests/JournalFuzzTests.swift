import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// A hostile journal as a list of steps, so that a found case can be kept as a recipe
/// (Tests/Regressions/journal): segments whose names and member headers carry every
/// numeric field at 0, 2^53 - 1, 2^53, 2^64 - 1 and beside them, member sizes and record
/// counts at their limits, cursors and move intents at and past 2^53, then appends.
enum JournalStep: Equatable, CustomStringConvertible {
    /// A segment named `name` with members (first sequence, record count), then maybe a
    /// seal; `patch` overwrites a header field (offset, width, value) and re-checksums it.
    case segment(name: UInt64, members: [(UInt64, Int)], seal: Bool, patch: (Int, Int, UInt64)?)
    case cursor(String)
    case intent(from: UInt64, end: UInt64, targetFirst: UInt64)
    case append(Int)

    static func == (a: JournalStep, b: JournalStep) -> Bool { a.description == b.description }

    var description: String {
        switch self {
        case .segment(let name, let members, let seal, let patch):
            return "segment \(name) " + members.map { "member \($0.0) \($0.1)" }.joined(separator: " ") + (seal ? " seal" : "")
                + (patch.map { " patch \($0.0) \($0.1) \($0.2)" } ?? "")
        case .cursor(let text): return "cursor \(text)"
        case .intent(let from, let end, let first): return "intent \(from) \(end) \(first)"
        case .append(let count): return "append \(count)"
        }
    }

    /// Parses a recipe line (the inverse of `description`).
    init?(_ line: Substring) {
        let words = line.split(separator: " ").map(String.init)
        guard let verb = words.first else { return nil }
        switch verb {
        case "segment":
            guard words.count >= 2, let name = UInt64(words[1]) else { return nil }
            var members: [(UInt64, Int)] = []
            var seal = false
            var patch: (Int, Int, UInt64)?
            var index = 2
            while index < words.count {
                if words[index] == "member", index + 2 < words.count, let first = UInt64(words[index + 1]), let count = Int(words[index + 2]) {
                    members.append((first, count)); index += 3
                } else if words[index] == "seal" {
                    seal = true; index += 1
                } else if words[index] == "patch", index + 3 < words.count, let offset = Int(words[index + 1]),
                          let width = Int(words[index + 2]), let value = UInt64(words[index + 3]) {
                    patch = (offset, width, value); index += 4
                } else {
                    return nil
                }
            }
            self = .segment(name: name, members: members, seal: seal, patch: patch)
        case "cursor": self = .cursor(words.dropFirst().joined(separator: " "))
        case "intent":
            guard words.count == 4, let a = UInt64(words[1]), let b = UInt64(words[2]), let c = UInt64(words[3]) else { return nil }
            self = .intent(from: a, end: b, targetFirst: c)
        case "append":
            guard words.count == 2, let count = Int(words[1]) else { return nil }
            self = .append(count)
        default: return nil
        }
    }
}

struct JournalGenerator {
    var random: SplitMix
    static let limit = SequenceNumber.limit
    static let boundaries: [UInt64] = [0, 1, limit - 100, limit - 1, limit, limit + 1, UInt64(UInt32.max), 99_999_999_999_999_999,
                                       UInt64.max - 1, UInt64.max]

    init(seed: UInt64) { random = SplitMix(state: seed) }

    mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &random)! }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    mutating func number() -> UInt64 {
        let base = pick(Self.boundaries)
        return chance(30) ? base &+ UInt64.random(in: 0...3, using: &random) : base
    }

    mutating func steps() -> [JournalStep] {
        var steps: [JournalStep] = []
        var names: [UInt64] = []
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let name = chance(60) ? min(number(), Self.limit) : number()
            guard !names.contains(name) else { continue }
            names.append(name)
            var first = chance(70) ? name : number()
            var members: [(UInt64, Int)] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let count = pick([1, 2, 3, 31])
                members.append((first, count))
                first = first &+ UInt64(count)
            }
            let patch: (Int, Int, UInt64)? = chance(25)
                ? pick([(20, 4, pick([0, 63, 64, 2_097_152, 2_097_153, UInt64(UInt32.max)])), (24, 8, number()),
                        (32, 4, pick([0, 1, UInt64(UInt32.max)])), (17, 1, pick([0, 2, 3, 255]))])
                : nil
            steps.append(.segment(name: name, members: members, seal: chance(30), patch: patch))
        }
        if chance(70) {
            steps.append(.cursor(pick(["0", "\(number())", "-1", "1e300", "9.0e15", "9007199254740992.5", "\"x\"", "null"])))
        }
        if chance(30) {
            let from = number()
            steps.append(.intent(from: from, end: from &+ UInt64.random(in: 1...40, using: &random), targetFirst: number()))
        }
        if chance(60) { steps.append(.append(pick([1, 10, 31]))) }
        return steps
    }
}

@Suite("journal structure-aware fuzz")
struct JournalFuzzTests {
    static let line = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,52.5]},"properties":{"timestamp":"2026-11-21T05:17:12Z"}}"#

    /// Builds the journal the steps describe in `directory`, runs every reader and writer on
    /// it, and checks: nothing traps; no record is handed out numbered 2^53 or past; a cursor
    /// read is at most 2^53; an appender never reports records it cannot number; an
    /// unreadable move intent is set aside by an abort.
    static func exercise(_ steps: [JournalStep], in directory: String) throws {
        let path = directory + "/journal"
        let journal = try Journal(path: path, create: true, deviceID: "fuzz")
        for step in steps {
            switch step {
            case .segment(let name, let members, let seal, let patch):
                var bytes: [UInt8] = []
                var total = 0
                for (first, count) in members {
                    let payload = Array(String(repeating: line + "\n", count: count).utf8)
                    bytes += Member.encode(kind: .records, payload: payload, firstSequence: first, recordCount: count,
                                           journalID: journal.id, writtenAt: 0, level: 1)
                    total += count
                }
                if seal {
                    bytes += Member.encode(kind: .seal, payload: [], firstSequence: name, recordCount: total, journalID: journal.id,
                                           writtenAt: 0, level: 1)
                }
                if let (offset, width, value) = patch, bytes.count >= 54 {
                    for index in 0..<width { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
                    let crc = bytes.withUnsafeBytes { Deflate.crc32(UnsafeRawBufferPointer(rebasing: $0[0..<52])) }
                    bytes[52] = UInt8(truncatingIfNeeded: crc)
                    bytes[53] = UInt8(truncatingIfNeeded: crc >> 8)
                }
                let digits = String(name)
                let file = String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".jsonl.gz"
                try Files.write(bytes, to: path + "/segments/" + file)
            case .cursor(let text):
                try Files.write(Array(#"{"journal_id":"\#(journal.id)","next":\#(text)}"#.utf8), to: path + "/cursor.json")
            case .intent(let from, let end, let targetFirst):
                try FileManager.default.createDirectory(atPath: path + "/state", withIntermediateDirectories: true)
                let text = #"{"version":1,"source_journal_id":"\#(journal.id)","target_journal_id":"\#(journal.id)","target":"\#(directory)/t","segments":[{"name":"00000000000000000000.jsonl.gz","from":\#(from),"end":\#(end),"records":\#(end &- from),"target_first":\#(targetFirst)}]}"#
                try Files.write(Array(text.utf8), to: path + "/state/move.json")
            case .append(let count):
                guard let appender = try? JournalAppender(journal: journal) else { continue }
                for _ in 0..<count { try? appender.append(Array(line.utf8)) }
                do {
                    try appender.commit()
                } catch .full {
                    // Refused as full: nothing past the limit may have been written.
                } catch {}
            }
        }
        // Every reader, every number it hands out below the limit.
        let cursor = try? journal.cursor()
        if let cursor { #expect(cursor <= SequenceNumber.limit) }
        if let reader = try? journal.records(from: cursor ?? 0) {
            var count = 0
            while let record = try? reader.next(), count < 10_000 {
                #expect(record.sequence < SequenceNumber.limit, "record \(record.sequence) handed out: \(steps)")
                count += 1
            }
        }
        _ = try? journal.verify()
        _ = try? journal.statistics()
        _ = try? journal.endSequence()
        _ = try? journal.backlog()
        _ = try? journal.lastRecord()
        _ = try? journal.footprint()
        if let end = try? journal.endSequence() { #expect(end <= SequenceNumber.limit, "end \(end): \(steps)") }
        // A move intent: readable, or set aside by an abort; never a lock.
        if (try? journal.pendingMove()) == nil, FileManager.default.fileExists(atPath: path + "/state/move.json") {
            _ = try journal.abortMove(targetPath: nil, targetLost: true)
            #expect(!FileManager.default.fileExists(atPath: path + "/state/move.json"), "\(steps)")
        }
    }

    @Test("seeded hostile journals: numbers at 0, 2^53 - 1, 2^53, 2^64 - 1, sizes and counts at their limits")
    func structuredJournals() throws {
        let seed = FuzzBudget.seed(0x13_0004)
        var generator = JournalGenerator(seed: seed)
        let journals = try FuzzBudget.run(150, seconds: 5) { _ in
            let directory = try TemporaryDirectory()
            try Self.exercise(generator.steps(), in: directory.path)
        }
        print("journal structured fuzz: seed \(seed), \(journals) journals")
        #expect(journals > 0)
    }

    @Test("every kept regression recipe")
    func regressions() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Regressions/journal")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".recipe") }.sorted()
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let steps = text.split(separator: "\n").compactMap { line -> JournalStep? in
                let parsed = JournalStep(line)
                if parsed == nil { Issue.record("\(file): cannot read '\(line)'") }
                return parsed
            }
            let directory = try TemporaryDirectory()
            try Self.exercise(steps, in: directory.path)
        }
    }
}
