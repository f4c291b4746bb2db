import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The helper the end-to-end tests stand on: if it misreports a status or loses output,
/// every other test here would lie.
@Suite struct ToolRunnerTests {
    let shell = ToolRunner(executable: "/bin/sh")

    @Test func capturesStatusAndBothStreams() throws {
        let result = try shell.run(["-c", "echo out; echo line2; echo err >&2; exit 3"])
        #expect(result.termination == .exited(3))
        #expect(result.exitStatus == 3 && result.signal == nil && !result.succeeded)
        #expect(result.stdoutLines == ["out", "line2"])
        #expect(result.stderrText == "err\n")
    }

    @Test func passesStandardInputAndEnvironment() throws {
        let input = (0..<20_000).map { "line \($0)" }.joined(separator: "\n") + "\n"
        let echoed = try ToolRunner(executable: "/bin/cat").run([], stdinText: input)
        #expect(echoed.succeeded)
        #expect(echoed.stdoutText == input, "a large input through a small pipe, both ways")

        var runner = shell
        runner.environment = ["TOOL_RUNNER_SET": "a b", "TOOL_RUNNER_REMOVED": "present"]
        let result = try runner.run(["-c", "echo \"$TOOL_RUNNER_SET|${TOOL_RUNNER_REMOVED-unset}|${PATH:+inherited}\""],
                                    environment: ["TOOL_RUNNER_REMOVED": nil])
        #expect(result.stdoutLines == ["a b|unset|inherited"])
        #expect(try runner.run(["-c", "echo $TOOL_RUNNER_REMOVED"]).stdoutLines == ["present"])
        #expect(try shell.run(["-c", "read x; echo \"[$x]\""]).stdoutLines == ["[]"], "no stdin means /dev/null")
    }

    @Test("a child inherits no descriptor but its standard streams, not even one open without close-on-exec")
    func childrenInheritOnlyTheirStandardStreams() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        // /proc/self/fd of the shell: 0, 1, 2, and the directory ls has open to list it.
        let result = try shell.run(["-c", "ls /proc/$$/fd"])
        #expect(result.succeeded, "\(result)")
        #expect(result.stdoutLines.compactMap(Int.init).filter { $0 > 2 }.isEmpty, "\(result.stdoutLines)")
        #expect(result.stdoutLines.contains("2"), "\(result.stdoutLines)")
    }

    @Test func reportsSignalsAndTimeouts() throws {
        let killed = try shell.run(["-c", "kill -9 $$"])
        #expect(killed.termination == .signaled(SIGKILL))
        #expect(killed.signal == SIGKILL)

        let slow = try shell.run(["-c", "sleep 30"], timeout: .milliseconds(300))
        #expect(slow.timedOut)
        // Killed, not waited for (sleep's own end would be exit 0): no wall-clock bound.
        #expect(slow.termination == .signaled(SIGKILL), "\(slow)")
    }

    @Test func streamsLinesAndKillsOnDemand() throws {
        let child = try shell.start(["-c", "i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.01; done"])
        var lines: [String] = []
        while lines.count < 3 {
            let (line, timedOut) = child.readLine()
            #expect(!timedOut)
            guard let line else { break }
            lines.append(line)
        }
        #expect(lines == ["tick 0", "tick 1", "tick 2"])
        child.killGroup(SIGKILL)
        let result = child.wait()
        #expect(result.termination == .signaled(SIGKILL))
        #expect(result.stdoutLines.starts(with: lines), "wait returns everything, lines already read included")
    }

    @Test func findsTheBuiltProducts() {
        #expect(ToolRunner.productsDirectory.hasSuffix("/debug") || ToolRunner.productsDirectory.hasSuffix("/release"))
        #expect(ToolRunner(product: "journal-torture").isAvailable)
        #expect(!ToolRunner(product: "no-such-product").isAvailable)
        #expect(throws: ToolRunnerError.self) { try ToolRunner(product: "no-such-product").run([]) }
    }

    @Test func temporaryDirectoryIsPrivateAndRemoved() throws {
        var path = ""
        do {
            let directory = try TemporaryDirectory()
            path = directory.path
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o700)
            #expect(FileManager.default.createFile(atPath: directory.appending("file"), contents: Data("x".utf8)))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
