import Foundation
import OverlandJSON
import OverlandSettings
@testable import OverlandSync
import Testing

/// A server's `set` applied by the library: saved to the settings file, every line for the
/// user handed to the sink (the library prints nothing), the token hidden in what the
/// server's text echoes.
@Suite struct ServerSetApplierTests {
    final class Lines: @unchecked Sendable {
        var said: [String] = []
    }

    static func applier(_ path: String, lines: Lines, verbose: Bool = false) -> ServerSetApplier {
        ServerSetApplier(settingsPath: path, verbose: verbose, now: { 1_800_000_000 }, say: { lines.said.append($0) })
    }

    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("server-set-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aSetIsSavedAndEveryLineGoesToTheSink() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/settings.json"
        let lines = Lines()
        let token = "s3cr3t-token-value"
        Self.applier(path, lines: lines, verbose: true).apply(try JSONParser.parse(
            #"{"send_interval": "off", "main": {"tracking_mode": "off", "min_time": "x-s3cr3t-token-value"}, "s3cr3t-token-value": 1}"#),
            token: token)
        let settings = try SettingsFile.load(path: path)
        #expect(settings.main.trackingMode == .off)
        #expect(lines.said.contains("server set: " + TrackingChange.remoteLine(isOff: true)), "\(lines.said)")
        #expect(lines.said.contains { $0.hasPrefix("the server turned sending off") }, "\(lines.said)")
        #expect(lines.said.contains { $0.hasPrefix("server set send_interval") }, "verbose: each change")
        #expect(lines.said.filter { $0.contains("<redacted>") }.count == 2, "\(lines.said)")
        #expect(!lines.said.contains { $0.contains(token) }, "\(lines.said)")
    }

    @Test func aFileThatCannotBeWrittenIsSaidNotThrown() throws {
        let lines = Lines()
        Self.applier("/proc/version/settings.json", lines: lines).apply(try JSONParser.parse(#"{"send_interval": "1m"}"#), token: nil)
        #expect(lines.said.count == 1 && lines.said.first?.hasPrefix("the server's settings were not saved: ") == true, "\(lines.said)")
    }
}
