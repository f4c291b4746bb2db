import Foundation
import OverlandJournal
@testable import OverlandLogger
import Testing

/// The logger's parts that touch files: the watch on the settings and trip files (its
/// clock injected), the no-fix state file, and opening inputs by name.
@Suite struct LoggerPartsTests {
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("logger-parts-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A change is noticed at the first look `interval` after the last: not before, once.
    @Test func aChangedFileIsNoticedAtTheNextLookAndOnce() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/trip.json"
        let watcher = FileChangeWatcher(path: path, interval: 2)
        #expect(!watcher.hasChanged(now: 100), "nothing changed")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(!watcher.hasChanged(now: 101), "looked 1 s ago: not yet")
        #expect(watcher.hasChanged(now: 102))
        #expect(!watcher.hasChanged(now: 104), "said once")
        try FileManager.default.removeItem(atPath: path)
        #expect(watcher.hasChanged(now: 106), "removed is a change too")
    }

    /// `state/input.json`: written with the input and the time, read back while the process
    /// runs, gone when cleared; a dead process's file counts for nothing.
    @Test func theNoFixStateIsReadOnlyWhileItsLoggerRuns() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Journal(path: directory + "/journal", create: true)
        InputState.write(.init(input: "gpsd at \"x\"", since: 1_700_000_000, pid: getpid()), in: journal)
        #expect(InputState.read(in: journal) == .init(input: "gpsd at \"x\"", since: 1_700_000_000, pid: getpid()))
        InputState.clear(in: journal)
        #expect(InputState.read(in: journal) == nil)
        InputState.write(.init(input: "standard input", since: 1, pid: Int32.max - 1), in: journal)
        #expect(InputState.read(in: journal) == nil, "no such process")
    }

    /// Opening by name: each refusal one line, its kind the exit status.
    @Test func inputsThatCannotBeOpenedAreNamedWithWhy() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/a.nmea"
        try Data("$GPGGA\r\n".utf8).write(to: URL(fileURLWithPath: file))
        var opener = InputOpener()
        #expect(throws: InputOpenError(.noInput, "cannot open '\(directory)/none': no such file or directory")) {
            try opener.open(directory + "/none")
        }
        #expect(throws: InputOpenError(.noInput, "cannot read '\(directory)': is a directory")) { try opener.open(directory) }
        let input = try opener.open(file)
        #expect(input.name == file && !input.isLive && input.size == 8 && input.reopen == nil)
        input.source.close()
        opener.baud = 9600
        #expect(throws: InputOpenError(.usage, "--baud 9600: '\(file)' is not a serial port")) { try opener.open(file) }
        #expect(throws: InputOpenError.self) { try InputOpener.gpsdClient("host:99999") }
        #expect(try InputOpener.gpsdClient("-").name == "gpsd at localhost:2947")
    }
}
