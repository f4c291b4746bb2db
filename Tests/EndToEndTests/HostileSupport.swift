import Foundation
import Testing

/// What the round-two hostile-input tests share: the peak memory of a real run.
enum HostileMeasure {
    /// Runs `tool ARGUMENTS` under GNU time (`/usr/bin/time -f %M`, installed by
    /// scripts/install-dependencies) and returns its result and peak resident set in bytes.
    static func peakRSS(_ tool: ToolRunner, _ arguments: [String], environment: [String: String?] = [:],
                        stdin: [UInt8]? = nil, timeout: Duration = ToolRunner.hangGuard) throws -> (ToolResult, Int) {
        let report = NSTemporaryDirectory() + "/overland-rss-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).txt"
        defer { unlink(report) }
        var time = ToolRunner(executable: try SystemTool.require("time"))
        time.environment = tool.environment
        let result = try time.run(["-f", "%M", "-o", report, tool.executable] + arguments, environment: environment,
                                  stdin: stdin, timeout: timeout)
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        // GNU time writes "Command exited with non-zero status N" before the figure.
        let kilobytes = text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
        return (result, kilobytes * 1024)
    }
}
