import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 21: the units' `SystemCallFilter=` gained `~@privileged @resources` (with
/// `SystemCallErrorNumber=EPERM`). The filter is applied here as systemd would apply it,
/// with strace failing every call it denies with EPERM: the logger imports and the sync
/// uploads as before, and neither makes such a call but the one whose failure is ignored. Skipped only where the container
/// does not permit ptrace (as the other strace tests).
@Suite(.enabled(if: !FaultTools.ptraceDenied, FaultTools.ptraceDeniedReason))
struct SecurityUnitSyscallTests {
    /// The system calls of `groups`, nested groups expanded, from systemd-analyze itself.
    static func syscalls(of groups: [String]) throws -> [String] {
        let analyze = try PackageSupport.tool("systemd-analyze")
        var names: Set<String> = []
        var pending = groups
        var expanded: Set<String> = []
        while let group = pending.popLast() {
            guard expanded.insert(group).inserted else { continue }
            let listed = try ToolRunner(executable: analyze).run(["syscall-filter", "--no-pager", group])
            #expect(listed.succeeded, "\(listed)")
            for line in listed.stdoutLines.dropFirst() {
                let name = line.trimmingCharacters(in: .whitespaces)
                if name.isEmpty || name.hasPrefix("#") { continue }
                if name.hasPrefix("@") { pending.append(name) } else { names.insert(name) }
            }
        }
        return names.sorted()
    }

    @Test func theLoggerAndTheSyncMakeNoCallTheUnitsDeny() throws {
        let denied = try Self.syscalls(of: ["@privileged", "@resources"])
        #expect(denied.contains("chown") && denied.contains("setrlimit") && denied.contains("setuid"), "\(denied)")
        let set = denied.map { "?" + $0 }.joined(separator: ",")
        let sandbox = try ReliabilitySandbox(prefix: "overland-syscalls")
        let server = try LocalServer()
        defer { server.stop() }
        func traced(_ product: String, _ arguments: [String], log: String) throws -> ToolResult {
            var runner = ToolRunner(executable: try FaultTools.strace())
            runner.environment = sandbox.environment
            return try runner.run(["-f", "-qq", "-o", log, "-e", "trace=" + set, "-e", "inject=" + set + ":error=EPERM", "--",
                                   ToolRunner.productsDirectory + "/" + product] + arguments, timeout: .seconds(120))
        }
        let capture = try sandbox.file("drive.nmea", SyntheticDrive.text(0..<40))
        let logLog = sandbox.directory.appending("log.strace")
        let logged = try traced("overland-log", ["--journal", sandbox.journal, "--device-id", "reliability", capture], log: logLog)
        #expect(logged.succeeded, "\(logged)")
        let syncLog = sandbox.directory.appending("sync.strace")
        let synced = try traced("overland-sync", ["--journal", sandbox.journal, "--url", server.url, "--now"], log: syncLog)
        #expect(synced.succeeded, "\(synced)")
        let delivered = server.requests.map { $0.bodyText.components(separatedBy: "\"type\":\"Feature\"").count - 1 }.reduce(0, +)
        let cursor = try sandbox.cursor()
        #expect(delivered > 0 && UInt64(delivered) == cursor, "every point delivered under the filter")
        // The one denied call made: libdispatch's worker threads setting their nice value
        // (setpriority, for a priority class; as the service has no CAP_SYS_NICE, a raise
        // fails there anyway), whose failure it ignores: the runs above worked. Any other is
        // a call the filter would break.
        for log in [logLog, syncLog] {
            let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                .filter { !$0.isEmpty && !$0.contains(" setpriority(") }
            #expect(calls.isEmpty, "\(log): a call the units deny: \(calls.prefix(20).joined(separator: "\n"))")
        }
    }
}
