import Foundation
import Testing

/// Hostile settings files through the three commands: one line naming the file, exit 78
/// (the logger: exit 0, logging on with the defaults),
/// and memory bounded whatever the depth.
@Suite("hostile settings files")
struct HostileSettingsTests {
    /// `{"a":{"a":...1...}}` nested `depth` deep.
    static func nested(_ depth: Int, open: String = #"{"a":"#, close: String = "}") -> String {
        String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth)
    }

    @Test("settings of 700 KB nested as deep as they go: one line (exit 78; the logger logs on), memory bounded, in all three commands",
          arguments: [(#"{"a":"#, "}"), ("[", "]"), (#"{"a":["#, "]}")])
    func deeplyNested(open: String, close: String) throws {
        let sandbox = try LogSandbox()
        let depth = 700_000 / (open.utf8.count + close.utf8.count)
        try sandbox.writeSettings(Self.nested(depth, open: open, close: close))
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        let runs: [(ToolRunner, [String])] = [
            (sandbox.overland, ["config", "list"]),
            (sandbox.logger, ["--journal", sandbox.journal, "/dev/null"]),
            (sync, ["--journal", sandbox.journal, "--now"]),
        ]
        for (tool, arguments) in runs {
            let (result, peak) = try HostileMeasure.peakRSS(tool, arguments)
            // The logger logs on with the defaults (and says so); the others refuse the file.
            let expected: Int32 = tool.executable == sandbox.logger.executable ? 0 : 78
            #expect(result.exitStatus == expected, "\(tool.executable): \(result)")
            #expect(result.stderrLines.filter { $0.contains(sandbox.settingsPath) }.count == 1, "\(result.stderrText)")
            if expected == 78 { #expect(result.stderrLines.count == 1, "\(result.stderrText)") }
            #expect(result.stderrText.contains(sandbox.settingsPath) && result.stderrText.contains("nesting deeper than 16"),
                    "\(result.stderrText)")
            // Before: 3.1 GB at 120 KB; the killer at 700 KB. A debug build idles near 40 MB.
            #expect(peak > 0 && peak < 120 << 20, "\(tool.executable): peak RSS \(peak) bytes")
        }
    }
}
