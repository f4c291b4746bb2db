import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A FIFO or directory where `manifest.json` or `journal.lock` should be is refused by both
/// readers and by the writers, with one line naming the file (journal-format.md section 2,
/// issue 21): the Python reader waited for ever on a FIFO, and `verify` passed a journal
/// whose lock no writer could take ("read-only journal", exit 74). git keeps no FIFO, so
/// these are made here rather than in the corpus (which has the directories).
@Suite("Journal files that are not regular files")
struct JournalNonRegularFileTests {
    enum Plant: String, CaseIterable { case fifo, directory }

    static let cases: [(String, Plant)] = [("manifest.json", .fifo), ("journal.lock", .fifo), ("journal.lock", .directory),
                                           ("manifest.json", .directory)]

    private static func journal(with file: String, as plant: Plant) throws -> (TemporaryDirectory, String) {
        let scratch = try ConformanceVectors.copy("intact")
        let journal = scratch.appending("vector/journal")
        let path = journal + "/" + file
        unlink(path)
        switch plant {
        case .fifo: try #require(mkfifo(path, 0o600) == 0)
        case .directory: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        return (scratch, journal)
    }

    @Test("both readers refuse it: not-a-file, exit 65, no wait", arguments: cases)
    func readersRefuse(file: String, plant: Plant) throws {
        let (scratch, journal) = try Self.journal(with: file, as: plant)
        defer { withExtendedLifetime(scratch) {} }
        let expected = "{\"refused\": {\"file\": \"\(file)\", \"reason\": \"not-a-file\"}}\n"
        let verify = try ToolRunner(product: "overland").run(["journal", "verify", "--journal", journal, "--json"])
        #expect(verify.stdoutText == expected, "\(verify)")
        verify.expectExit(65)
        let python = try ToolRunner(executable: "/usr/bin/python3").run([ConformanceVectors.pythonReader, journal, "--json"])
        #expect(python.stdoutText == expected, "\(python)")
        python.expectExit(65)
        let records = try ToolRunner(executable: "/usr/bin/python3").run([ConformanceVectors.pythonReader, journal])
        #expect(records.exitStatus == 65 && records.stdout.isEmpty, "\(records)")
        #expect(records.stderrLines.count == 1 && records.stderrText.contains(file), "\(records)")
    }

    @Test("a writer refuses it with one line naming the file, exit 65 (not 74, 'read-only journal')", arguments: cases)
    func writersRefuse(file: String, plant: Plant) throws {
        let (scratch, journal) = try Self.journal(with: file, as: plant)
        defer { withExtendedLifetime(scratch) {} }
        let capture = scratch.appending("a.nmea")
        try GeneratedNMEA.epochs(0..<3).write(toFile: capture, atomically: false, encoding: .utf8)
        let log = try ToolRunner(product: "overland-log").run(["--journal", journal, capture])
        log.expectExit(65)
        #expect(log.stderrLines.count == 1 && log.stderrText.contains(file) && !log.stderrText.contains("read-only"), "\(log)")
    }
}
