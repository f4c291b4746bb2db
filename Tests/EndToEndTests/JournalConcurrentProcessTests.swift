import TestSupport
import Foundation
import Testing
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// Several processes on one journal at once: appenders serialise on the lock, readers see
/// whole commits (journal-format.md section 6).
@Suite struct JournalConcurrentProcessTests {
    /// Two appenders start together on a journal that does not exist yet: both create it,
    /// both append 2000 records in commits of three, rotating small segments. Their first
    /// `stepped` commits take turns, told by the test (`--step`: each waits for a line
    /// after a commit); the rest race.
    @Test func twoAppendersAtOnce() throws {
        let directory = try TemporaryDirectory()
        let journal = directory.appending("journal")
        let stepped = 10
        let arguments = ["2000", "--commit-every", "3", "--segment-bytes", "6000", "--step", "\(stepped)"]
        let a = try Torture.runner.start(["append", journal] + arguments + ["--writer", "A"], stdin: true)
        let b = try Torture.runner.start(["append", journal] + arguments + ["--writer", "B"], stdin: true)
        for turn in 0..<stepped {
            for (writer, tool) in [("A", a), ("B", b)] {
                if turn > 0 { tool.writeInput(Array("\n".utf8)) }
                let line = tool.readLine().line
                try #require(line?.hasPrefix("committed \(writer) ") == true, "\(writer), turn \(turn): \(line ?? "no line")")
            }
        }
        for tool in [a, b] {
            tool.writeInput(Array("\n".utf8))
            tool.closeInput()
        }
        let resultA = a.wait()
        let resultB = b.wait()
        #expect(resultA.succeeded, "A: \(resultA)")
        #expect(resultB.succeeded, "B: \(resultB)")
        let committed = Torture.committed(in: resultA.stdoutLines + resultB.stdoutLines)
        #expect(committed == ["A": 2000, "B": 2000])

        let (records, issues) = try Torture.read(journal)
        #expect(issues.isEmpty, "\(issues)")
        let present = Torture.check(records, committed: committed, writers: ["A", "B"])
        #expect(present == ["A": 2000, "B": 2000])
        #expect(records.map(\.sequence) == Array(0..<4000), "no number skipped or reused")
        // The two really ran at the same time: after their first commits, in turns.
        let switches = zip(records, records.dropFirst()).filter { $0.writer != $1.writer }.count
        #expect(switches >= 2 * (stepped - 1), "the appenders did not interleave: \(switches) switches")
        // Every record line is exactly what its writer produced.
        for record in records {
            #expect(record.line == "{\"writer\":\"\(record.writer)\",\"n\":\(record.number),\"pad\":\"\"}")
        }
        #expect(try Torture.readWithCommand(journal).count == 4000)

        let opened = try Journal(path: journal)
        let names = try opened.segments()
        #expect(names.count > 2)
        for name in names.dropLast() {
            #expect(try opened.isSealed(name), "\(name)")
            let gzip = try ToolRunner(executable: "/bin/gzip").run(["-t", journal + "/segments/" + name.fileName])
            #expect(gzip.succeeded, "gzip -t \(name): \(gzip.stderrText)")
        }
        Torture.checkPermissions(journal)
    }

    /// While an appender runs, every read returns whole commits: numbers contiguous from 0,
    /// a multiple of the commit size, never a partial line, never damage.
    @Test func readerDuringWrites() throws {
        let directory = try TemporaryDirectory()
        let journal = directory.appending("journal")
        let total = 3000
        // The writer waits after each of its first four commits (--step) while the test
        // reads: four reads certainly fall between commits; the rest race the writer.
        let stepped = 4
        let child = try Torture.runner.start([
            "append", journal, String(total), "--commit-every", "5", "--segment-bytes", "5000", "--writer", "r",
            "--step", "\(stepped)",
        ], stdin: true)
        var reads = 0
        var previous = 0
        for step in 1...stepped {
            let line = child.readLine().line
            try #require(line == "committed r \((step - 1) * 5)..<\(step * 5)", "\(line ?? "no line")")
            let (records, issues) = try Torture.read(journal)
            #expect(issues.isEmpty, "step \(step): \(issues)")
            #expect(records.map(\.sequence) == Array(0..<UInt64(step * 5)), "step \(step): \(records.count) records")
            reads += 1
            previous = records.count
            child.writeInput(Array("\n".utf8))
        }
        child.closeInput()
        var outputEnded = false
        while !outputEnded {
            // Drain the child's progress lines without blocking for long.
            while true {
                let (line, timedOut) = child.readLine(timeout: .milliseconds(1))
                if line == nil && !timedOut { outputEnded = true }
                if line == nil { break }
            }
            guard FileManager.default.fileExists(atPath: journal + "/manifest.json") else { continue }
            let records: [Torture.Record]
            if reads % 6 == 5 {
                records = try Torture.readWithCommand(journal)
            } else {
                let (read, issues) = try Torture.read(journal)
                #expect(issues.isEmpty, "read \(reads): \(issues)")
                records = read
            }
            reads += 1
            #expect(records.map(\.sequence) == Array(0..<UInt64(records.count)), "read \(reads) is not a prefix")
            #expect(records.allSatisfy { $0.writer == "r" && UInt64($0.number) == $0.sequence })
            #expect(records.count % 5 == 0, "read \(reads) ended inside a commit: \(records.count) records")
            #expect(records.count >= previous, "read \(reads) went back from \(previous) to \(records.count)")
            previous = records.count
        }
        let result = child.wait()
        #expect(result.succeeded, "\(result)")
        let (records, issues) = try Torture.read(journal)
        #expect(issues.isEmpty)
        #expect(records.count == total)
        Torture.checkPermissions(journal)
    }
}
