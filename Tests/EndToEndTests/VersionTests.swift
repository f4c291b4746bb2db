import Foundation
import Testing

/// `--version`: the three commands report one version (OverlandVersion.current), and asking
/// for it touches nothing.
@Suite("--version")
struct VersionTests {
    @Test func theThreeCommandsPrintTheSameVersion() throws {
        let sandbox = try LogSandbox()
        let sync: ToolRunner = {
            var runner = ToolRunner(product: "overland-sync")
            runner.environment = sandbox.logger.environment
            return runner
        }()
        var versions: [String] = []
        for tool in [sandbox.logger, sync, sandbox.overland] {
            let result = try tool.run(["--version"])
            #expect(result.exitStatus == 0 && result.stderr.isEmpty, "\(tool.executable): \(result)")
            #expect(result.stdoutLines.count == 1, "\(tool.executable): \(result)")
            let version = result.stdoutText.trimmingCharacters(in: .newlines)
            #expect(version.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?/) != nil, "\(tool.executable): \(version)")
            versions.append(version)
        }
        #expect(Set(versions).count == 1, "\(versions)")
        #expect(!StatusCommandFiles.exists(sandbox.directory.appending("data")), "--version creates no journal")
    }
}
