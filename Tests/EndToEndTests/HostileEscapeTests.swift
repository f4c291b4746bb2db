import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("terminal escapes from a hostile journal")
struct HostileEscapeTests {
    // MARK: - 8. Escapes from a hostile journal

    @Test("escapes in the manifest's device_id, state/sync.json's last_error and records never reach the terminal or a CSV raw")
    func terminalEscapes() throws {
        let (sandbox, _) = try RoundTwo.sandbox()
        let evil = #"\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202eevil,\"q\"\nrow\r"#
        // The manifest's device id.
        let manifestPath = sandbox.journal + "/manifest.json"
        var manifest = try String(contentsOfFile: manifestPath, encoding: .utf8)
        if let range = manifest.range(of: #""device_id":"[^"]*""#, options: .regularExpression) {
            manifest.replaceSubrange(range, with: #""device_id":"\#(evil)""#)
        }
        try HostileJournalTests.write(Array(manifest.utf8), to: manifestPath)
        // The last error of the sync state.
        try FileManager.default.createDirectory(atPath: sandbox.journal + "/state", withIntermediateDirectories: true)
        let state = #"{"version":1,"last_attempt":"2026-11-21T05:17:12Z","last_success":null,"last_failure":"2026-11-21T05:17:12Z","consecutive_failures":2,"next_attempt":null,"last_status":500,"last_error":"\#(evil)","geocode":"\#(evil)"}"#
        try HostileJournalTests.write(Array(state.utf8), to: sandbox.journal + "/state/sync.json")
        // A record whose device id and wifi carry the same.
        let journal = try Journal(path: sandbox.journal)
        let appender = try JournalAppender(journal: journal)
        let line = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,52.5]},"properties":{"timestamp":"2026-11-21T05:17:12Z","altitude":30,"speed":1.5,"course":3,"horizontal_accuracy":5,"vertical_accuracy":3,"speed_accuracy":-1,"course_accuracy":-1,"motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"wifi":"\#(evil)","device_id":"\#(evil)"}}"#
        try appender.append(Array(line.utf8))
        try appender.commit()
        var outputs: [(String, [UInt8])] = []
        for arguments in [["journal", "stats"], ["journal", "stats", "--json"], ["status"], ["status", "--json"],
                          ["export", "--format", "csv"], ["export", "--format", "gpx"], ["journal", "verify"]] {
            let result = try sandbox.overland.run(arguments + ["--journal", sandbox.journal])
            #expect(result.exitStatus == 0, "\(arguments): \(result)")
            outputs.append((arguments.joined(separator: " "), result.stdout + result.stderr))
        }
        for (name, bytes) in outputs {
            #expect(!bytes.contains(0x1B) && !bytes.contains(0x07), "\(name): an escape reached the terminal")
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E }, "\(name): C1 or override")
        }
        // The CSV: the field quoted (RFC 4180: its line feed is data inside the quotes), quotes
        // doubled, every other control character dropped.
        let csv = try #require(outputs.first { $0.0 == "export --format csv" }?.1)
        let text = String(decoding: csv, as: UTF8.self)
        let field = "\"[2J]0;pwned31mevil,\"\"q\"\"\nrow\""
        #expect(text.contains("," + field + "," + field + ","), "\(text)")
    }
}
