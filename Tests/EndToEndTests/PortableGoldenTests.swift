import Foundation
import Testing
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// A journal written on one machine reads on another: the bytes below were written by
/// `overland journal move` on the machine these tests were written on (a source of three
/// records, one of them an action, one with non-ASCII text), and must read back the same
/// everywhere. And nothing a journal holds names the machine that wrote it.
@Suite struct PortableGoldenTests {
    static let manifest = "eyJmb3JtYXQiOiJvdmVybGFuZC1qb3VybmFsIiwidmVyc2lvbiI6MSwiam91cm5hbF9pZCI6ImQyNTFhOGM1MTNmMDRiZDQzZThkMGMwNzYxMmU1ODE0IiwiZGV2aWNlX2lkIjoidG9ydHVyZSIsImNyZWF0ZWQiOiIyMDI2LTExLTIxVDA2OjIzOjQ1WiIsIm1vdmVkX2Zyb20iOlsiM2FiMzRhZGZjNjg2MTUzN2ZhZmM1MDMwZDgyMDgzMjciXX0K"
    static let cursor = "eyJqb3VybmFsX2lkIjoiZDI1MWE4YzUxM2YwNGJkNDNlOGQwYzA3NjEyZTU4MTQiLCJuZXh0IjoxfQo="
    static let segment = "H4sIBvE4AWsA/ygAT0okAAEBAABvAQAAAAAAAAAAAAADAAAA0lGoxRPwS9Q+jQwHYS5YFA21xZBBTgMhGIX3nsL8azoB2qmVA7h24aqmmSD8HUkYIAyMqU2PYeIVPIc38SQyNsbaGBN14fa9x/8e3xbSJiAIuECZckQg0KLvMMUNiO27eemNS8VS3kdtnEzYg7hm02pGa0opIzWvar7aEQjRB4zJjIHy3HTYJ9mFcoNTPp8wNuHsitaCnQnGl+WktMmkrEvLdEagD4gaBKvqsSzHvujnlMCtj+beuyRtI5XKUaoyr2SGsUt9UqcEOp+Md2Uh6GgG41pYEbiRKWHcNGVPGv+UXbC5bUvdh2dxQAuCVgsCd2ZtSqy4GgejsDFlGAzSwW53sv0rtvkeGWU/hMaPodUH0PghNfaf1JRcPz+dvjw+/AKfy9YeM5Fqvw2CzD3qxnolR6XJQb9hJd9hWwhKl18veQXVwVHxAAMAAB+LCAbxOAFrAP8oAE9KJAABAgAAQAAAAAAAAAAAAAAAAwAAANJRqMUT8EvUPo0MB2EuWBTWmAMAAAAAAAAAAAA="

    static let records = [
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4050001,52.52]},"properties":{"timestamp":"2026-11-21T05:17:12Z","altitude":34,"speed":1.5,"course":90,"horizontal_accuracy":5,"vertical_accuracy":3,"motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"van"}}"#,
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[13.406,52.5201]},"properties":{"timestamp":"2026-11-21T05:17:22Z","altitude":35,"speed":1.25,"course":91,"horizontal_accuracy":5,"vertical_accuracy":3,"motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"wifi":"café ☕","device_id":"van"}}"#,
        #"{"type":"Feature","geometry":null,"properties":{"action":"paused_location_updates","timestamp":"2026-11-21T05:18:00Z","device_id":"van"}}"#,
    ]

    @Test func aJournalWrittenElsewhereReadsTheSame() throws {
        let sandbox = try MoveSandbox(prefix: "overland-golden")
        let path = sandbox.directory.appending("stick/overland")
        try FileManager.default.createDirectory(atPath: path + "/segments", withIntermediateDirectories: true)
        try Data(base64Encoded: Self.manifest)!.write(to: URL(fileURLWithPath: path + "/manifest.json"))
        try Data(base64Encoded: Self.cursor)!.write(to: URL(fileURLWithPath: path + "/cursor.json"))
        try Data(base64Encoded: Self.segment)!.write(to: URL(fileURLWithPath: path + "/segments/00000000000000000000.jsonl.gz"))

        let journal = try Journal(path: path)
        #expect(journal.id.description == "d251a8c513f04bd43e8d0c07612e5814")
        #expect(journal.manifest.deviceID == "torture")
        #expect(try journal.movedFrom()?.map(\.description) == ["3ab34adfc6861537fafc5030d8208327"])
        #expect(try journal.isSealed(SegmentName(firstSequence: 0)))
        let view = try #require(try JournalView.read(path))
        #expect(view.records.map(\.line) == Self.records)
        #expect(view.records.map(\.sequence) == [0, 1, 2])
        #expect(view.cursor == 1)
        #expect(view.issues.isEmpty)
        let verify = try sandbox.overland(["journal", "verify", "--journal", path])
        #expect(verify.succeeded && verify.stdoutText.contains("1 segment, 3 intact records, 0 damaged ranges"), "\(verify)")
        let text = try SystemTool.run("zcat", [path + "/segments/00000000000000000000.jsonl.gz"])
        #expect(text.stdoutText == Self.records.joined(separator: "\n") + "\n")
        let csv = try sandbox.overland(["export", "--journal", path, "--format", "csv"])
        #expect(csv.stdoutText.contains("2026-11-21T05:17:22Z,52.5201,13.406,35,1.25,91,5,3,driving,unplugged,0.8,café ☕,van,"), "\(csv)")
    }

    @Test func nothingInAMovedJournalNamesTheMachine() throws {
        let sandbox = try MoveSandbox(prefix: "overland-golden")
        try MoveRecords.makeSource(at: sandbox.source, cursor: 3)
        #expect(try sandbox.move(["--seal"]).succeeded)
        let user = getpwuid(getuid()).map { String(decoding: UnsafeRawBufferPointer(start: $0.pointee.pw_name, count: strlen($0.pointee.pw_name)), as: UTF8.self) }
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, 255)
        let hostName = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let forbidden = [sandbox.directory.path, "/tmp/", "/home/", hostName] + (user.map { [$0] } ?? [])
        var files = 0
        for path in GoldenFiles.all(under: sandbox.target) {
            files += 1
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            for word in forbidden where word.utf8.count >= 4 {
                #expect(!GoldenFiles.contains(bytes, Array(word.utf8)), "\(path) holds '\(word)'")
            }
            guard path.hasSuffix(".jsonl.gz") else { continue }
            // Every member: OS 255 (unknown), XFL 0, little-endian fields (section 5).
            var offset = 0
            while offset + 54 <= bytes.count {
                #expect(bytes[offset + 8] == 0 && bytes[offset + 9] == 255, "\(path) member at \(offset)")
                offset += Int(bytes[offset + 20]) | Int(bytes[offset + 21]) << 8 | Int(bytes[offset + 22]) << 16 | Int(bytes[offset + 23]) << 24
            }
            #expect(offset == bytes.count)
        }
        #expect(files >= 3)
        checkFATCompatible(sandbox.target)
        // The source keeps no trace of the move either, once it is done.
        #expect(!FileManager.default.fileExists(atPath: sandbox.source + "/state/move.json"))
    }
}

private enum GoldenFiles {
    static func all(under root: String) -> [String] {
        var result: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                result.append(root + "/" + relative)
            }
        }
        return result
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}
