import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Usage, help and failures: each failure is one line on stderr and a sysexits status.
@Suite("overland-log: help and errors")
struct LogErrorTests {
    @Test func helpMentionsEveryOption() throws {
        let sandbox = try LogSandbox()
        let result = try sandbox.logger.run(["--help"])
        #expect(result.termination == .exited(0), "\(result)")
        #expect(result.stderr.isEmpty)
        let help = result.stdoutText
        #expect(help.contains("USAGE: overland-log"))
        for option in ["<files>", "--journal <dir>", "--config <file>", "--input <input>", "--date <yyyy-mm-dd>",
                       "--device-id <device-id>", "--commit-interval <interval>", "--min-time <interval>",
                       "--min-distance <min-distance>", "--stats", "--help"] {
            #expect(help.contains(option), "--help mentions \(option)")
        }
        for topic in ["gpspipe -r", "gpspipe -w", "SIGTERM", "SIGHUP", "66", "74", "--date", "OVERLAND_DEVICE_ID",
                      "power_supply", "stationary", "tracking_enabled", "min_time", "integer_speed"] {
            #expect(help.contains(topic), "--help explains \(topic)")
        }
        #expect(try sandbox.logger.run(["-h"]).stdoutText == help)
    }

    @Test func nonexistentInputExits66() throws {
        let sandbox = try LogSandbox()
        let missing = sandbox.directory.appending("no-such-capture.nmea")
        let result = try sandbox.log([missing])
        result.expectExit(66)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines == ["overland-log: cannot open '\(missing)': no such file or directory"])
    }

    @Test func aLaterMissingInputStillKeepsTheEarlierPoints() throws {
        let sandbox = try LogSandbox()
        let missing = sandbox.directory.appending("gone.nmea")
        let result = try sandbox.log([LogSamples.bundled, missing])
        result.expectExit(66)
        #expect(result.stderrLines == ["overland-log: cannot open '\(missing)': no such file or directory"])
        #expect(try sandbox.records().count == 31, "the first file's points are committed before the exit")
    }

    @Test func directoryAsInputExits66() throws {
        let sandbox = try LogSandbox()
        let result = try sandbox.log([sandbox.directory.path])
        result.expectExit(66)
        #expect(result.stderrLines == ["overland-log: cannot read '\(sandbox.directory.path)': is a directory"])
    }

    @Test(arguments: [["--date", "bad"], ["--date", "2020-13-01"], ["--date", "20-01-01"], ["--commit-interval", "-1"],
                      ["--commit-interval", "4000"], ["--min-time", "-5"], ["--min-distance", "-1"], ["--no-such-option"]])
    func usageErrorsExit64(arguments: [String]) throws {
        let sandbox = try LogSandbox()
        let result = try sandbox.log(arguments + [LogSamples.bundled])
        result.expectExit(64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.contains(arguments[0]), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal), "no journal made on a usage error")
    }

    @Test func journalThatIsARegularFile() throws {
        let sandbox = try LogSandbox()
        try Data("not a journal\n".utf8).write(to: URL(fileURLWithPath: sandbox.journal))
        let result = try sandbox.log([LogSamples.bundled])
        #expect(result.exitStatus != 0 && result.exitStatus != nil, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "one line: \(result.stderrText)")
        let line = result.stderrLines.first ?? ""
        #expect(line.hasPrefix("overland-log: ") && line.contains(sandbox.journal), "\(line)")
        #expect(line.contains("not a directory"), "\(line)")
        #expect(try String(contentsOfFile: sandbox.journal, encoding: .utf8) == "not a journal\n", "the file is untouched")
    }

    @Test func directoryThatIsNotAJournal() throws {
        let sandbox = try LogSandbox()
        try FileManager.default.createDirectory(atPath: sandbox.journal, withIntermediateDirectories: true)
        try Data("my notes\n".utf8).write(to: URL(fileURLWithPath: sandbox.journal + "/notes.txt"))
        let result = try sandbox.log([LogSamples.bundled])
        // `--journal ~` by mistake must not turn the home directory into a journal.
        #expect(result.exitStatus == 66, "a directory holding other files is not made a journal: \(result)")
        #expect(result.stderrLines.count == 1 && result.stderrText.contains("not empty"), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal + "/manifest.json"))
        #expect(FileManager.default.fileExists(atPath: sandbox.journal + "/notes.txt"), "the user's file is left alone")
    }

    @Test func defaultJournalIsUnderXDGDataHome() throws {
        let sandbox = try LogSandbox()
        let result = try sandbox.logger.run([LogSamples.bundled])
        #expect(result.succeeded, "\(result)")
        let journal = sandbox.directory.appending("data/overland/journal")
        #expect(FileManager.default.fileExists(atPath: journal + "/manifest.json"))
        let viaEnvironment = sandbox.directory.appending("env-journal")
        #expect(try sandbox.logger.run([LogSamples.bundled], environment: ["OVERLAND_JOURNAL": viaEnvironment]).succeeded)
        #expect(FileManager.default.fileExists(atPath: viaEnvironment + "/manifest.json"))
    }
}
