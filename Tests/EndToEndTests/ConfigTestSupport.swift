import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private home for one test of `overland config` and `overland setup`: its own
/// XDG_CONFIG_HOME and HOME, and none of the variables that choose or override settings
/// inherited from whoever runs the tests, so that the real user's files are never touched.
struct ConfigSandbox {
    let directory: TemporaryDirectory
    let runner: ToolRunner

    init() throws {
        directory = try TemporaryDirectory(prefix: "overland-config")
        var runner = ToolRunner(product: "overland")
        runner.environment = [
            "XDG_CONFIG_HOME": directory.appending("config"),
            "HOME": directory.appending("home"),
            "OVERLAND_CONFIG": nil, "OVERLAND_URL": nil, "OVERLAND_TOKEN": nil,
            "OVERLAND_DEVICE_ID": nil, "OVERLAND_JOURNAL": nil,
        ]
        self.runner = runner
    }

    /// Where the settings file goes by default here.
    var settingsPath: String { directory.appending("config/overland/settings.json") }

    /// Runs `overland ARGUMENTS`.
    func run(_ arguments: [String], environment: [String: String?] = [:], stdinText: String? = nil) throws -> ToolResult {
        if let stdinText { return try runner.run(arguments, environment: environment, stdinText: stdinText) }
        return try runner.run(arguments, environment: environment)
    }

    /// Runs `overland config ARGUMENTS`.
    func config(_ arguments: String..., environment: [String: String?] = [:]) throws -> ToolResult {
        try run(["config"] + arguments, environment: environment)
    }

    /// Runs `overland config ARGUMENTS` and requires success; returns standard output's lines.
    @discardableResult
    func configSucceeds(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let result = try run(["config"] + arguments)
        #expect(result.succeeded, "overland config \(arguments.joined(separator: " ")): \(result)", sourceLocation: sourceLocation)
        return result.stdoutLines
    }

    /// The bytes of the settings file at `path` (the default one when nil), or nil when there is none.
    func fileBytes(_ path: String? = nil) -> [UInt8]? {
        FileManager.default.contents(atPath: path ?? settingsPath).map { [UInt8]($0) }
    }

    /// Writes `text` as the settings file, creating its directory.
    func writeSettings(_ text: String, to path: String? = nil) throws {
        let path = path ?? settingsPath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// The permission bits of `path`.
    func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}

extension ToolResult {
    /// The one line a failing command prints on standard error.
    var failureLine: String { stderrLines.first ?? "" }
}
