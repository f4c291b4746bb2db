import TestSupport
import Foundation
import Testing

/// The journal format's conformance corpus (journal-format.md section 14): every vector in
/// `Tests/Conformance/vectors` read by `overland journal verify --json`, by the library's
/// streaming reader (`journal-torture read`, what a sync uses) and by the independent Python
/// reader, `scripts/journal_reader.py`. All must print exactly the vector's expected
/// summary and records.
enum ConformanceVectors {
    static let root = LogSamples.repository + "/Tests/Conformance"
    static let directory = root + "/vectors"
    static let pythonReader = LogSamples.repository + "/scripts/journal_reader.py"

    static let names: [String] = {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }()

    static func read(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A copy of the vector in a temporary directory, links kept as links. git keeps no
    /// empty directory, so a journal's `segments/` that held no file (the generator always
    /// makes one, or a link in its place) is made again here.
    static func copy(_ name: String) throws -> TemporaryDirectory {
        let scratch = try TemporaryDirectory(prefix: "overland-vector")
        let copied = try ToolRunner(executable: "/bin/cp").run(["-a", directory + "/" + name, scratch.appending("vector")])
        guard copied.termination == .exited(0) else { throw ToolRunnerError(description: "cp: \(copied.stderrText)") }
        let segments = scratch.appending("vector/journal/segments")
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: scratch.appending("vector/journal/manifest.json")),
           (try? FileManager.default.destinationOfSymbolicLink(atPath: segments)) == nil,
           !FileManager.default.fileExists(atPath: segments, isDirectory: &isDirectory) {
            try FileManager.default.createDirectory(atPath: segments, withIntermediateDirectories: false)
        }
        return scratch
    }

    /// Every file under `path` with its bytes (a link: its target), for a before/after
    /// comparison; with `directories`, every directory too (as no bytes). A comparison with
    /// the committed corpus leaves directories out: git keeps no empty one.
    static func snapshot(_ path: String, directories: Bool = true) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        let manager = FileManager.default
        guard let walker = manager.enumerator(atPath: path) else { return result }
        while let relative = walker.nextObject() as? String {
            let full = path + "/" + relative
            if let target = try? manager.destinationOfSymbolicLink(atPath: full) {
                result[relative] = Array(("-> " + target).utf8)
            } else if (try? manager.attributesOfItem(atPath: full)[.type] as? FileAttributeType) == .typeRegular {
                result[relative] = try read(full)
            } else if directories {
                result[relative] = []
            }
        }
        return result
    }

    /// The exit status a vector's summary calls for: 65 for damage, a refused cursor or a
    /// refused journal, 66 for no summary (not a journal), else 0.
    static func expectedStatus(_ summary: [UInt8]) throws -> Int32 {
        // Not a journal (no or bad manifest): no JSON at all, exit 66 (section 14).
        if summary.isEmpty { return 66 }
        let object = try #require(try JSONScan.object(summary))
        if object["refused"] != nil { return 65 }
        let damaged = try #require(object["damaged"] as? [Any])
        let cursors = try #require(object["cursors"] as? [String: [String: Any]])
        let cursorRefused = cursors.values.contains { $0["error"] != nil }
        return damaged.isEmpty && !cursorRefused ? 0 : 65
    }
}

@Suite("Journal conformance vectors")
struct ConformanceVectorTests {
    @Test("the corpus is there and covers the cases of issue 17")
    func corpusIsComplete() throws {
        let names = Set(ConformanceVectors.names)
        for required in ["intact", "killed-mid-commit", "zero-filled-tail", "torn-member", "bitflip-active",
                         "bitflip-sealed", "spliced-foreign", "out-of-sequence", "overlapping-segments", "gaps",
                         "cursor-past-end", "cursor-not-json", "cursor-negative", "cursor-fraction", "cursor-too-large",
                         "cursor-no-journal-id", "moved-journal", "symlinked-segment",
                         // Named cursors (issue 15): several, below and above the floor, the floor missing,
                         // invalid, foreign, not files, stray files, the directory refused.
                         "cursors-several", "cursors-below-and-above-floor", "cursors-floor-missing", "cursors-invalid",
                         "cursors-foreign", "cursors-not-files", "cursors-stray-files", "cursors-symlinked-dir",
                         "cursors-not-a-directory",
                         // Issues 21 and 22: files that are not regular files, and what the document
                         // was silent on (seals, counts, sizes, tails, manifests, repeated keys).
                         "lock-directory", "manifest-directory", "segments-file", "seal-at-2-53", "records-count-0",
                         "size-out-of-range-past-end", "seal-bad-crc", "seal-then-zeros", "seal-then-zeros-older",
                         "foreign-then-torn-tail", "cursor-repeated-key", "manifest-checked-first",
                         "manifest-version-fraction", "manifest-created-fraction", "manifest-repeated-key",
                         "manifest-no-device-id"] {
            #expect(names.contains(required), "missing vector \(required)")
        }
        #expect(names.count >= 40)
    }

    @Test("the committed vectors are what the generator makes")
    func generatorReproducesTheCorpus() throws {
        let scratch = try TemporaryDirectory(prefix: "overland-vectors")
        let copy = scratch.appending("Conformance")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ConformanceVectors.root + "/make_vectors.py", toPath: copy + "/make_vectors.py")
        let made = try ToolRunner(executable: "/usr/bin/python3").run([copy + "/make_vectors.py"])
        #expect(made.termination == .exited(0), "\(made.stderrText)")
        #expect(try ConformanceVectors.snapshot(copy + "/vectors", directories: false)
                == ConformanceVectors.snapshot(ConformanceVectors.directory, directories: false))
    }

    @Test("overland journal verify --json prints the expected summary and changes nothing", arguments: ConformanceVectors.names)
    func verifyJSON(vector: String) throws {
        let scratch = try ConformanceVectors.copy(vector)
        let base = scratch.appending("vector")
        let expected = try ConformanceVectors.read(base + "/expected.json")
        let before = try ConformanceVectors.snapshot(base)
        let result = try ToolRunner(product: "overland").run(["journal", "verify", "--journal", base + "/journal", "--json"])
        #expect(String(decoding: result.stdout, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(result.exitStatus == (try ConformanceVectors.expectedStatus(expected)), "\(result.stderrText)")
        #expect(try ConformanceVectors.snapshot(base) == before, "verify wrote into the journal")
    }

    @Test("scripts/journal_reader.py prints the expected records and summary", arguments: ConformanceVectors.names)
    func pythonReader(vector: String) throws {
        let scratch = try ConformanceVectors.copy(vector)
        let base = scratch.appending("vector")
        let expected = try ConformanceVectors.read(base + "/expected.json")
        let status = try ConformanceVectors.expectedStatus(expected)
        let before = try ConformanceVectors.snapshot(base)
        let python = ToolRunner(executable: "/usr/bin/python3")
        let summary = try python.run([ConformanceVectors.pythonReader, base + "/journal", "--json"])
        #expect(String(decoding: summary.stdout, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(summary.exitStatus == status, "\(summary.stderrText)")
        let records = try python.run([ConformanceVectors.pythonReader, base + "/journal"])
        #expect(records.stdout == (try ConformanceVectors.read(base + "/records.jsonl")))
        #expect(records.exitStatus == status)
        #expect(try ConformanceVectors.snapshot(base) == before, "the reader wrote into the journal")
    }

    @Test("the library's streaming reader passes on the expected records and reports each damaged range",
          arguments: ConformanceVectors.names)
    func streamingReader(vector: String) throws {
        let scratch = try ConformanceVectors.copy(vector)
        let base = scratch.appending("vector")
        let expected = try ConformanceVectors.read(base + "/expected.json")
        let result = try ToolRunner(product: "journal-torture").run(["read", base + "/journal"])
        if expected.isEmpty {
            #expect(result.exitStatus != 0 && result.stdout.isEmpty, "not a journal: \(result)")
            return
        }
        let object = try #require(try JSONScan.object(expected))
        if let refused = object["refused"] as? [String: String] {
            // A streaming reader may have passed on the segments before the refused file.
            #expect(result.exitStatus != 0)
            #expect(result.stderrText.contains(try #require(refused["file"])), "\(result.stderrText)")
            return
        }
        let records = try ConformanceVectors.read(base + "/records.jsonl")
        let lines = result.stdoutLines.map { line -> String in
            guard let space = line.firstIndex(of: " ") else { return line }
            return String(line[line.index(after: space)...])
        }
        #expect(lines.map { $0 + "\n" }.joined() == String(decoding: records, as: UTF8.self))
        let damaged = try #require(object["damaged"] as? [[String: Any]])
        let reported = result.stderrLines.filter { $0.contains("damaged bytes at offset") }
        #expect(reported.count == damaged.count, "\(result.stderrText)")
        for (line, range) in zip(reported, damaged) {
            let file = try #require(range["file"] as? String)
            let offset = try #require(range["offset"] as? Int)
            let length = try #require(range["length"] as? Int)
            #expect(line.contains("\(file): \(length) damaged bytes at offset \(offset) "), "\(line)")
        }
    }

    /// Recovery and repair follow the same reading: after `overland journal repair` a
    /// vector holds exactly the same records, with no damage and no torn tail left.
    @Test("overland journal repair keeps every intact record and leaves nothing to report", arguments: ConformanceVectors.names)
    func repairKeepsTheRecords(vector: String) throws {
        let scratch = try ConformanceVectors.copy(vector)
        let base = scratch.appending("vector")
        let expected = try ConformanceVectors.read(base + "/expected.json")
        let overland = ToolRunner(product: "overland")
        let repair = try overland.run(["journal", "repair", "--journal", base + "/journal"])
        if expected.isEmpty {
            // Not a journal: nothing is repaired or created.
            #expect(repair.exitStatus == 66, "\(repair.stderrText)")
            return
        }
        let object = try #require(try JSONScan.object(expected))
        guard object["refused"] == nil else {
            // A refused journal is left as it is: the user fixes it first.
            #expect(repair.exitStatus == 65, "\(repair.stderrText)")
            return
        }
        #expect(repair.exitStatus == 0, "\(repair.stderrText)")
        let cursors = try #require(object["cursors"] as? [String: [String: Any]])
        let after = try overland.run(["journal", "verify", "--journal", base + "/journal", "--json"])
        // A refused cursor is never rewritten: verify still refuses it after the repair.
        let refusedCursor = cursors.values.contains { $0["error"] != nil }
        #expect(after.exitStatus == (refusedCursor ? 65 : 0), "\(after.stdoutText) \(after.stderrText)")
        let summary = try #require(try JSONScan.object(after.stdout))
        #expect((summary["damaged"] as? [Any])?.isEmpty == true, "\(after.stdoutText)")
        #expect(summary["tail"] is NSNull, "\(after.stdoutText)")
        #expect(summary["records"] as? Int == object["records"] as? Int)
        // Every cursor (one, or the floor and each named one) as before: repair moves none.
        let cursorsAfter = try #require(summary["cursors"] as? [String: [String: Any]])
        #expect(Set(cursorsAfter.keys) == Set(cursors.keys), "\(after.stdoutText)")
        for (key, cursor) in cursors {
            #expect(cursorsAfter[key]?["unsent"] as? Int == cursor["unsent"] as? Int, "\(key)")
            #expect(cursorsAfter[key]?["error"] as? String == cursor["error"] as? String, "\(key)")
        }
        let records = try ToolRunner(executable: "/usr/bin/python3").run([ConformanceVectors.pythonReader, base + "/journal"])
        #expect(records.stdout == (try ConformanceVectors.read(base + "/records.jsonl")))
    }

    /// Beyond the vectors: journals the real writer made (commits of one and of many
    /// records, sealed segments, the active one, a cursor in the middle, then a crash's torn
    /// write) read the same through both readers, and as `zcat` prints them.
    @Test("a journal written by the appender reads the same in verify, the Python reader and zcat")
    func writtenJournalsReadTheSame() throws {
        let scratch = try TemporaryDirectory(prefix: "overland-written")
        let journal = scratch.appending("journal")
        let torture = ToolRunner(product: "journal-torture")
        #expect(try torture.run(["append", journal, "700", "--commit-every", "7", "--segment-bytes", "8000", "--pad", "20"]).exitStatus == 0)
        #expect(try torture.run(["append", journal, "300", "--commit-every", "1", "--writer", "b", "--seal"]).exitStatus == 0)
        #expect(try torture.run(["append", journal, "41", "--commit-every", "5", "--writer", "c"]).exitStatus == 0)
        #expect(try torture.run(["advance", journal, "555"]).exitStatus == 0)
        let segments = try FileManager.default.contentsOfDirectory(atPath: journal + "/segments").sorted()
        #expect(segments.count > 3)
        let newest = try #require(segments.last)
        // A torn write: half a member's header at the end of the active segment.
        try Data([0x1f, 0x8b, 0x08, 0x06, 0x01, 0x02, 0x03]).append(toFile: journal + "/segments/" + newest)

        let python = ToolRunner(executable: "/usr/bin/python3")
        let verify = try ToolRunner(product: "overland").run(["journal", "verify", "--journal", journal, "--json"])
        let summary = try python.run([ConformanceVectors.pythonReader, journal, "--json"])
        #expect(verify.exitStatus == 0 && summary.exitStatus == 0, "\(verify.stderrText) \(summary.stderrText)")
        #expect(verify.stdoutText == summary.stdoutText)
        #expect(verify.stdoutText.hasPrefix("{\"segments\": \(segments.count), \"records\": 1041, \"damaged\": [], \"cursors\": {\"default\": {\"next\": 555, \"unsent\": 486}}, \"tail\": {"),
                "\(verify.stdoutText)")
        let records = try python.run([ConformanceVectors.pythonReader, journal])
        let zcat = try ToolRunner(executable: "/bin/sh").run(["-c", "zcat " + journal + "/segments/*.jsonl.gz 2>/dev/null"])
        #expect(records.stdout.count > 30_000)
        #expect(records.stdout == zcat.stdout)
        let streamed = try torture.run(["read", journal])
        let lines = streamed.stdoutLines.map { line in line.firstIndex(of: " ").map { String(line[line.index(after: $0)...]) } ?? line }
        #expect(lines.map { $0 + "\n" }.joined() == records.stdoutText)
    }
}

extension Data {
    /// Appends these bytes to the file at `path`.
    func append(toFile path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: self)
    }
}
