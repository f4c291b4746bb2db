import TestSupport
import Foundation
import OverlandJournal
import Testing

/// Whether a journal is a copy is decided by machine (a hashed machine id in the manifest)
/// and the journal's history, never by device ids.
@Suite struct SyncCopyDetectionTests {
    @Test func theLoggersOwnJournalSyncsWhateverTheDeviceIDs() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-honesty")
        try sandbox.writeSettings(#"{"device_id": "alice/van"}"#)
        let log = try sandbox.log.run(["--journal", sandbox.journal, "--device-id", "van", try sandbox.file("a.nmea", SyntheticDrive.text(0..<20))])
        #expect(log.succeeded, "\(log)")
        #expect(try Journal(path: sandbox.journal).manifest.machine != nil, "the logger records its machine")
        let server = try LocalServer()
        defer { server.stop() }
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"])
        result.expectExit(0)
        #expect(try sandbox.cursor() == 20)
    }

    @Test func aJournalMadeOnAnotherMachineIsRefusedAsACopy() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-honesty")
        let elsewhere = sandbox.directory.appending("from-elsewhere")
        let journal = try Journal(path: elsewhere, create: true, deviceID: "van", machine: "00000000-0000-4000-8000-000000000000")
        let appender = try JournalAppender(journal: journal)
        try appender.append(Array(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1.5,2.5]},"properties":{"timestamp":"2024-03-01T00:00:00Z"}}"#.utf8))
        _ = try appender.commit()
        let server = try LocalServer()
        defer { server.stop() }
        let result = try sandbox.sync.run(["--journal", elsewhere, "--url", server.url, "--now"])
        result.expectExit(65)
        #expect(result.stderrText.contains("another machine"), "\(result.stderrText)")
        #expect(server.requests.isEmpty)
        let accepted = try sandbox.sync.run(["--journal", elsewhere, "--url", server.url, "--now", "--accept-copy"])
        accepted.expectExit(0)
        #expect(server.requests.count == 1)
    }
}
