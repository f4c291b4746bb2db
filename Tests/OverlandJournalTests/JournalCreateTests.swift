import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

@Suite struct JournalCreateTests {
    @Test func createWritesTheManifestPrivately() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true, deviceID: "van", now: 1_700_000_000)

        let manifestPath = directory.journal + "/manifest.json"
        let bytes = try Files.bytes(manifestPath)
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 1, "one JSON object on one line")
        let object = try #require(try JSONScan.object(bytes))
        #expect(Set(object.keys) == ["format", "version", "journal_id", "device_id", "created"])
        #expect(object["format"] as? String == "overland-journal")
        #expect(object["version"] as? Int == 1)
        #expect(object["device_id"] as? String == "van")
        #expect(object["created"] as? String == "2023-11-14T22:13:20Z")
        let id = try #require(object["journal_id"] as? String)
        #expect(id.count == 32 && id.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(id == journal.id.description)

        #expect(try #require(Files.mode(directory.journal)) == (S_IFDIR, 0o700))
        #expect(try #require(Files.mode(directory.journal + "/segments")) == (S_IFDIR, 0o700))
        #expect(try #require(Files.mode(manifestPath)) == (S_IFREG, 0o600))
        #expect(try #require(Files.mode(directory.journal + "/journal.lock")) == (S_IFREG, 0o600))
        #expect(!Files.list(directory.journal).contains { $0.hasPrefix(".tmp-") }, "no temporary file left")
    }

    @Test func reopeningReadsTheSameIdentity() throws {
        let directory = try TemporaryDirectory()
        let created = try Journal(path: directory.journal, create: true, deviceID: "van", now: 1_700_000_000)
        let manifestBefore = try Files.bytes(directory.journal + "/manifest.json")

        let reopened = try Journal(path: directory.journal)
        #expect(reopened.id == created.id)
        #expect(reopened.manifest == created.manifest)
        // `create` on an existing journal opens it: the manifest is written once, never changed.
        let again = try Journal(path: directory.journal, create: true, deviceID: "other", now: 1_800_000_000)
        #expect(again.id == created.id)
        #expect(again.manifest.deviceID == "van")
        #expect(try Files.bytes(directory.journal + "/manifest.json") == manifestBefore)
    }

    @Test func twoJournalsHaveDifferentIdentities() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        #expect(try Journal(path: first.journal, create: true).id != Journal(path: second.journal, create: true).id)
    }

    @Test func openingWithoutCreateRefusesAMissingJournal() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: JournalError.self) { try Journal(path: directory.journal) }
        #expect(!Files.exists(directory.journal), "opening must not create anything")
        // An existing directory without a manifest is not a journal either.
        #expect {
            try Journal(path: directory.path)
        } throws: { error in
            guard case .notAJournal = error as? JournalError else { return false }
            return true
        }
    }

    static let badManifests: [(String, String)] = [
        ("newer version", #"{"format":"overland-journal","version":2,"journal_id":"00112233445566778899aabbccddeeff","device_id":"","created":"2026-11-21T05:17:12Z"}"#),
        ("other format", #"{"format":"something-else","version":1,"journal_id":"00112233445566778899aabbccddeeff","device_id":"","created":"2026-11-21T05:17:12Z"}"#),
        ("no format", #"{"version":1,"journal_id":"00112233445566778899aabbccddeeff","device_id":"","created":"2026-11-21T05:17:12Z"}"#),
        ("not an object", #"["overland-journal",1]"#),
        ("not JSON", "overland-journal v1"),
        ("empty", ""),
        ("version zero", #"{"format":"overland-journal","version":0,"journal_id":"00112233445566778899aabbccddeeff","device_id":"","created":"2026-11-21T05:17:12Z"}"#),
        ("version a string", #"{"format":"overland-journal","version":"1","journal_id":"00112233445566778899aabbccddeeff","device_id":"","created":"2026-11-21T05:17:12Z"}"#),
        ("short journal id", #"{"format":"overland-journal","version":1,"journal_id":"0011","device_id":"","created":"2026-11-21T05:17:12Z"}"#),
        ("bad created", #"{"format":"overland-journal","version":1,"journal_id":"00112233445566778899aabbccddeeff","device_id":"","created":"yesterday"}"#),
    ]

    @Test(arguments: badManifests)
    func refusesABadManifest(name: String, manifest: String) throws {
        let directory = try TemporaryDirectory()
        _ = try Journal(path: directory.journal, create: true)
        try Files.write(Array(manifest.utf8), to: directory.journal + "/manifest.json")
        do {
            _ = try Journal(path: directory.journal)
            Issue.record("a manifest that is \(name) was accepted")
        } catch {
            guard case .notAJournal = error else {
                Issue.record("expected notAJournal, got \(error)")
                return
            }
            #expect(error.description.contains("manifest.json") || error.description.contains(directory.journal))
        }
        // `create` must not paper over a bad manifest by writing a new one.
        #expect(throws: JournalError.self) { try Journal(path: directory.journal, create: true) }
        #expect(try Files.bytes(directory.journal + "/manifest.json") == Array(manifest.utf8))
    }

    @Test func newerVersionMessageNamesBothVersions() throws {
        let directory = try TemporaryDirectory()
        _ = try Journal(path: directory.journal, create: true)
        try Files.write(Array(#"{"format":"overland-journal","version":7,"journal_id":"00112233445566778899aabbccddeeff","device_id":"","created":"2026-11-21T05:17:12Z"}"#.utf8),
                        to: directory.journal + "/manifest.json")
        let error = try #require(throws: JournalError.self) { try Journal(path: directory.journal) }
        #expect(error.description.contains("7"))
        #expect(error.description.contains("1"))
    }

    @Test func unknownManifestKeysAreIgnored() throws {
        let directory = try TemporaryDirectory()
        _ = try Journal(path: directory.journal, create: true)
        let text = #"{"format":"overland-journal","version":1,"journal_id":"00112233445566778899aabbccddeeff","device_id":"van","created":"2026-11-21T05:17:12Z","later":{"minor":[1,2]}}"# + "\n"
        try Files.write(Array(text.utf8), to: directory.journal + "/manifest.json")
        let journal = try Journal(path: directory.journal)
        #expect(journal.id.description == "00112233445566778899aabbccddeeff")
        #expect(journal.manifest.deviceID == "van")
    }

    @Test func refusesAManifestSymlink() throws {
        let directory = try TemporaryDirectory()
        _ = try Journal(path: directory.journal, create: true)
        let outside = directory.path + "/elsewhere.json"
        try FileManager.default.moveItem(atPath: directory.journal + "/manifest.json", toPath: outside)
        try Files.symlink(outside, at: directory.journal + "/manifest.json")
        for create in [false, true] {
            let error = try #require(throws: JournalError.self) { try Journal(path: directory.journal, create: create) }
            guard case .untrusted = error else {
                Issue.record("expected untrusted, got \(error)")
                continue
            }
        }
    }

    @Test func refusesSegmentsAsASymlink() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit([recordLine("a", 0)], to: appender)
        let outside = directory.path + "/outside-segments"
        try FileManager.default.moveItem(atPath: directory.journal + "/segments", toPath: outside)
        try Files.symlink(outside, at: directory.journal + "/segments")
        let before = Files.list(outside)
        for create in [false, true] {
            let error = try #require(throws: JournalError.self) { try Journal(path: directory.journal, create: create) }
            guard case .untrusted = error else {
                Issue.record("expected untrusted, got \(error)")
                continue
            }
        }
        #expect(Files.list(outside) == before)
    }

    @Test func refusesALockSymlink() throws {
        let directory = try TemporaryDirectory()
        _ = try Journal(path: directory.journal, create: true)
        let outside = directory.path + "/outside.lock"
        try Files.write([], to: outside)
        try FileManager.default.removeItem(atPath: directory.journal + "/journal.lock")
        try Files.symlink(outside, at: directory.journal + "/journal.lock")
        let error = try #require(throws: JournalError.self) { try Journal(path: directory.journal) }
        guard case .untrusted = error else {
            Issue.record("expected untrusted, got \(error)")
            return
        }
    }

    /// Several processes (the logger and `overland trip stop`) may create the same journal at
    /// the same moment: all of them must end up with the one identity on disk.
    @Test func concurrentCreatesAgreeOnOneIdentity() throws {
        for _ in 0..<20 {
            let directory = try TemporaryDirectory()
            let ids = ResultBox<Result<JournalID, JournalError>>()
            let path = directory.journal
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                ids.add(Result { () throws(JournalError) in try Journal(path: path, create: true).id })
            }
            let onDisk = try Journal(path: path).id
            for result in ids.values {
                switch result {
                case .success(let id): #expect(id == onDisk, "a creator kept an identity that is not the manifest's")
                case .failure(let error): Issue.record("concurrent create failed: \(error)")
                }
            }
            #expect(!Files.list(path).contains { $0.hasPrefix(".tmp-") })
        }
    }
}

final class ResultBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [T] = []
    func add(_ value: T) { lock.withLock { stored.append(value) } }
    var values: [T] { lock.withLock { stored } }
}
