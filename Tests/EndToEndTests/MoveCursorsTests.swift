import Foundation
import Testing
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// `overland journal move` of a journal with several readers (journal-format.md sections 9
/// and 12): it moves from the floor, every cursor passes each moved segment, the target
/// arrives with no cursors, and a kill between two cursor writes loses nothing.
@Suite struct MoveCursorsTests {
    /// Readers and where their cursors start: the default reader at 27 (cursor.json, copied
    /// into cursors/default.json when the first named cursor is written), `a` at 45, `b`
    /// at 70. The floor is 27. Six sealed segments of 20 records and an active one of 5.
    static let readers: [(name: String, cursor: UInt64)] = [("default", 27), ("a", 45), ("b", 70)]

    static func makeSource(_ sandbox: MoveSandbox) throws -> [String] {
        let lines = try MoveRecords.makeSource(at: sandbox.source, cursor: 27)
        let journal = try Journal(path: sandbox.source)
        for reader in readers where reader.name != "default" {
            try journal.advanceCursor(for: try #require(CursorName(reader.name)), to: reader.cursor)
        }
        #expect(try journal.cursor() == 27)
        #expect(try journal.cursorNames().map(\.text) == ["a", "b", "default"])
        return lines
    }

    /// Each reader's view: the records it has not sent that the source holds (nothing while
    /// a move is pending: the source is not synced), with what the target holds.
    static func check(_ sandbox: MoveSandbox, lines: [String], context: String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let source = try Journal(path: sandbox.source)
        let pending = try source.pendingMove() != nil
        let sourceRecords = try #require(try JournalView.read(sandbox.source)).records
        let target = try JournalView.read(sandbox.target)
        let targetUnsent = Set(target?.records.map(\.line) ?? [])
        #expect(!FileManager.default.fileExists(atPath: sandbox.target + "/cursor.json"),
                "\(context): the target got a cursor", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: sandbox.target + "/cursors"),
                "\(context): the target got named cursors", sourceLocation: sourceLocation)
        for reader in readers {
            let name = try #require(CursorName(reader.name))
            let cursor = try source.cursor(for: name)
            let floor = try source.cursor()
            #expect(cursor >= floor, "\(context): \(reader.name) below the floor", sourceLocation: sourceLocation)
            let inSource = sourceRecords.filter { $0.sequence >= cursor }.map(\.line)
            let present = Set(inSource).union(targetUnsent)
            let lost = lines[Int(reader.cursor)...].filter { !present.contains($0) }
            #expect(lost.isEmpty, "\(context): \(lost.count) records lost for reader \(reader.name)", sourceLocation: sourceLocation)
            let both = pending ? [] : Set(inSource).intersection(targetUnsent)
            #expect(both.isEmpty, "\(context): \(both.count) records sendable from both for \(reader.name)",
                    sourceLocation: sourceLocation)
        }
    }

    /// After a move ran to its end: every cursor past the moved segments, the floor too,
    /// the target holding everything from the floor on, in order.
    static func checkComplete(_ sandbox: MoveSandbox, lines: [String], context: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        try check(sandbox, lines: lines, context: context, sourceLocation: sourceLocation)
        let source = try Journal(path: sandbox.source)
        #expect(try source.pendingMove() == nil, "\(context): still pending", sourceLocation: sourceLocation)
        #expect(try source.cursor() == 120, "\(context): the floor", sourceLocation: sourceLocation)
        for reader in readers {
            #expect(try source.cursor(for: try #require(CursorName(reader.name))) == 120, "\(context): \(reader.name)",
                    sourceLocation: sourceLocation)
        }
        let target = try #require(try JournalView.read(sandbox.target))
        #expect(target.cursor == 0)
        #expect(target.records.map(\.line) == Array(lines[27..<120]), "\(context): the target", sourceLocation: sourceLocation)
        #expect(try JournalView.read(sandbox.source)?.unsent == Array(lines.suffix(5)), sourceLocation: sourceLocation)
    }

    @Test func aMoveStartsAtTheFloorAndEveryCursorPassesIt() throws {
        let sandbox = try MoveSandbox()
        let lines = try Self.makeSource(sandbox)
        let moved = try sandbox.move()
        #expect(moved.succeeded, "\(moved)")
        try Self.checkComplete(sandbox, lines: lines, context: "after the move")
        // The target is unsent for every reader of the machine that syncs it.
        let verify = try sandbox.overland(["journal", "verify", "--journal", sandbox.target, "--json"])
        #expect(verify.succeeded, "\(verify)")
        #expect(verify.stdoutText.contains("\"cursors\": {\"default\": {\"next\": 0, \"unsent\": 93}}"), "\(verify.stdoutText)")
        // And the source's verify lists the floor and each reader.
        let source = try sandbox.overland(["journal", "verify", "--journal", sandbox.source, "--json"])
        #expect(source.stdoutText.contains("\"cursors\": {\"cursor.json\": {\"next\": 120, \"unsent\": 5}, \"a\": {\"next\": 120, \"unsent\": 5}, "
            + "\"b\": {\"next\": 120, \"unsent\": 5}, \"default\": {\"next\": 120, \"unsent\": 5}}"), "\(source.stdoutText)")
    }

    /// `move.after-reader-cursor:N` is the Nth named cursor written: the second segment moves
    /// past `default` only (1), the third past `a` then `default` (2, 3), the fourth past `a`,
    /// `b`, `default` (4, 5, 6). `cursors.*` are inside a named cursor's write, `cursor.*`
    /// inside the floor's.
    @Test(arguments: ["move.after-reader-cursor:1", "move.after-reader-cursor:2", "move.after-reader-cursor:5",
                      "cursors.after-write:2", "cursors.after-rename:4", "cursor.after-write:3", "move.after-cursor:3"])
    func killedBetweenCursorWritesThenRunAgain(fault: String) throws {
        let sandbox = try MoveSandbox()
        let lines = try Self.makeSource(sandbox)
        let crashed = try sandbox.move(fault: fault)
        #expect(crashed.termination == .signaled(SIGKILL), "\(fault): \(crashed)")
        try Self.check(sandbox, lines: lines, context: "killed at \(fault)")
        #expect(try Journal(path: sandbox.source).pendingMove() != nil, "the intent keeps the source from being synced")
        let finished = try sandbox.move()
        #expect(finished.succeeded, "\(finished)")
        try Self.checkComplete(sandbox, lines: lines, context: "after the re-run (\(fault))")
    }

    /// The one way to make a segment sendable from both: giving the move up with the target
    /// declared lost right after some cursors passed it, then finding the target after all.
    /// A reader whose cursor had not been written sends that segment's records again from
    /// the source (duplicates); none is lost.
    @Test func givenUpBetweenCursorWritesResendsAtMostTheSegmentInFlight() throws {
        let sandbox = try MoveSandbox()
        let lines = try Self.makeSource(sandbox)
        // The fourth segment [60, 80): `a` and `b` passed it, `default` and the floor did not.
        let crashed = try sandbox.move(fault: "move.after-reader-cursor:5")
        #expect(crashed.termination == .signaled(SIGKILL), "\(crashed)")
        // The stick is gone: the move is given up.
        let found = sandbox.directory.appending("found")
        try FileManager.default.moveItem(atPath: sandbox.target, toPath: found)
        let aborted = try sandbox.overland(["journal", "move", "--journal", sandbox.source, "--abort", "--target-lost"])
        #expect(aborted.succeeded, "\(aborted)")
        let source = try Journal(path: sandbox.source)
        #expect(try source.pendingMove() == nil)
        let sourceRecords = try #require(try JournalView.read(sandbox.source)).records
        // It turns up.
        let target = Set(try #require(try JournalView.read(found)).records.map(\.line))
        for reader in Self.readers {
            let cursor = try source.cursor(for: try #require(CursorName(reader.name)))
            let present = Set(sourceRecords.filter { $0.sequence >= cursor }.map(\.line)).union(target)
            #expect(lines[Int(reader.cursor)...].allSatisfy { present.contains($0) }, "nothing lost for \(reader.name)")
        }
        let defaultCursor = try source.cursor(for: .default)
        let twice = sourceRecords.filter { $0.sequence >= defaultCursor && target.contains($0.line) }.map(\.sequence)
        #expect(twice == Array(60..<80), "only the segment in flight, and only for the readers it had not passed")
        for name in ["a", "b"] {
            let cursor = try source.cursor(for: try #require(CursorName(name)))
            #expect(!sourceRecords.contains { $0.sequence >= cursor && target.contains($0.line) }, "\(name) sends nothing twice")
        }
    }

    /// A cursor file that cannot be read stops a move before it writes anything.
    @Test func aRefusedCursorStopsTheMoveBeforeAnyIntent() throws {
        let sandbox = try MoveSandbox()
        _ = try Self.makeSource(sandbox)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: sandbox.source + "/cursors/b.json"))
        let refused = try sandbox.move()
        refused.expectExit(65)
        #expect(refused.stderrText.contains("cursors/b.json"), "\(refused.stderrText)")
        #expect(try Journal(path: sandbox.source).pendingMove() == nil)
        #expect(try Journal(path: sandbox.source).segments().count == 7)
    }
}
