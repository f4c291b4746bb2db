import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// strace as a fault injector: the real tools killed (SIGKILL on entry) at every `fsync`,
/// `write` and `rename` of a scripted run, and made to fail (EIO, ENOSPC) at every one.
/// After each: a clear error or none, nothing committed lost, the journal verifies, the
/// next run carries on. Fails, naming strace, where it is not installed; skipped only where
/// the container does not permit ptrace (which no install can change).
@Suite(.enabled(if: !FaultTools.ptraceDenied, FaultTools.ptraceDeniedReason))
struct FaultStraceTests {
    typealias Script = ReliabilityLogCrashTests.Script

    /// One traced system call from an `strace -f -y` log.
    struct Call {
        var name: String
        /// The file its first descriptor names (`-y`), if any.
        var path: String?
        var line: String
        var injected: Bool { line.contains("(INJECTED)") }
        var killed: Bool { line.hasSuffix("= ?") }
    }

    static let traced = ["fsync", "write", "rename", "renameat", "renameat2", "ftruncate", "unlink"]

    /// Runs `program ARGUMENTS` under strace with `inject` (e.g. `fsync:signal=KILL:when=3`).
    static func traced(_ program: String, _ arguments: [String], inject: String?, environment: [String: String?],
                       log: String) throws -> ToolResult {
        var runner = ToolRunner(executable: try FaultTools.strace())
        runner.environment = environment
        var options = ["-f", "-y", "-qq", "-o", log, "-e", "trace=" + traced.joined(separator: ",")]
        if let inject { options += ["-e", "inject=" + inject] }
        return try runner.run(options + ["--", program] + arguments)
    }

    /// The calls named `names` in a strace log, in order.
    static func calls(in log: String, named names: Set<String>) throws -> [Call] {
        let text = try String(contentsOfFile: log, encoding: .utf8)
        var calls: [Call] = []
        for raw in text.split(separator: "\n") {
            // "PID  NAME(ARGS) = RESULT"; "<... NAME resumed>" halves are skipped.
            let line = raw.drop { $0 != " " }.drop { $0 == " " }
            guard let open = line.firstIndex(of: "("), !line.hasPrefix("<...") else { continue }
            let name = String(line[..<open])
            guard names.contains(name) else { continue }
            var path: String?
            if let start = line.firstIndex(of: "<"), let end = line[start...].firstIndex(of: ">"), start > open {
                path = String(line[line.index(after: start)..<end])
            }
            calls.append(Call(name: name, path: path, line: String(line)))
        }
        return calls
    }

    static func names(_ syscall: String) -> Set<String> {
        syscall == "rename" ? ["rename", "renameat", "renameat2"] : [syscall]
    }

    static func injectSet(_ syscall: String) -> String {
        syscall == "rename" ? "rename,renameat,renameat2" : syscall
    }

    // MARK: - overland-log

    @Test(arguments: ["fsync", "write", "rename"])
    func loggerKilledAtEverySystemCall(syscall: String) throws {
        let base = try ReliabilitySandbox(prefix: "overland-strace")
        let inputs = try Script.prepare(base)
        // A clean traced run counts the calls.
        let counting = try ReliabilitySandbox(prefix: "overland-strace")
        try copyTree(base.journal, to: counting.journal)
        let countLog = counting.directory.appending("strace.log")
        let clean = try Self.traced(counting.log.executable, Script.arguments(counting, inputs: inputs), inject: nil,
                                    environment: counting.environment, log: countLog)
        #expect(clean.succeeded, "\(clean)")
        let total = try Self.calls(in: countLog, named: Self.names(syscall)).count
        #expect(total >= 1, "no \(syscall) in a scripted run")

        var lastSurvived = 0
        for nth in 1...max(total, 1) {
            let sandbox = try ReliabilitySandbox(prefix: "overland-strace")
            try copyTree(base.journal, to: sandbox.journal)
            let log = sandbox.directory.appending("strace.log")
            let run = try Self.traced(sandbox.log.executable, Script.arguments(sandbox, inputs: inputs),
                                      inject: "\(Self.injectSet(syscall)):signal=KILL:when=\(nth)",
                                      environment: sandbox.environment, log: log)
            #expect(run.termination == .signaled(SIGKILL), "\(syscall) #\(nth): \(run)")
            let killedAt = try Self.calls(in: log, named: Self.names(syscall)).last
            #expect(killedAt?.killed == true, "\(syscall) #\(nth): \(killedAt?.line ?? "none")")
            let survived = try Script.checkRecovery(sandbox, context: "killed at \(syscall) #\(nth) (\(killedAt?.path ?? "?"))")
            #expect(survived >= lastSurvived, "\(syscall) #\(nth): fewer points survived a later kill")
            lastSurvived = survived
        }
        Figures.record("crash: overland-log, strace kill at every system call", "kills at every \(syscall)", total)
    }

    /// A journal that does not exist yet: killed at every call of its creation (manifest,
    /// directories) and of its first segment, the next run still makes a sound journal.
    @Test(arguments: ["fsync", "rename"])
    func freshJournalKilledAtEverySystemCall(syscall: String) throws {
        let base = try ReliabilitySandbox(prefix: "overland-strace")
        let input = try base.file("fresh.nmea", SyntheticDrive.text(0..<20))
        let arguments = { (journal: String) in ["--journal", journal, "--device-id", "reliability", "--commit-interval", "0", input] }
        let countLog = base.directory.appending("count.log")
        let clean = try Self.traced(base.log.executable, arguments(base.directory.appending("counting")), inject: nil,
                                    environment: base.environment, log: countLog)
        #expect(clean.succeeded, "\(clean)")
        let total = try Self.calls(in: countLog, named: Self.names(syscall)).count
        for nth in 1...max(total, 1) {
            let journal = base.directory.appending("journal-\(nth)")
            let run = try Self.traced(base.log.executable, arguments(journal), inject: "\(Self.injectSet(syscall)):signal=KILL:when=\(nth)",
                                      environment: base.environment, log: base.directory.appending("run-\(nth).log"))
            #expect(run.termination == .signaled(SIGKILL), "\(syscall) #\(nth): \(run)")
            // The next run creates or repairs the journal and logs everything.
            try base.logEpochs(20..<30, journal: journal)
            let verify = try base.verify(journal)
            #expect(verify.succeeded, "\(syscall) #\(nth): \(verify)")
            let epochs = JournalInvariant.check(try ReliabilitySandbox.read(journal).records, context: "\(syscall) #\(nth)")
            #expect(epochs.suffix(10) == Array(20..<30), "\(syscall) #\(nth): \(epochs)")
            let first = Array(epochs.dropLast(10))
            #expect(first == Array(0..<first.count), "\(syscall) #\(nth): \(first)")
            Torture.checkPermissions(journal)
        }
        Figures.record("crash: overland-log creating a journal, strace kill", "kills at every \(syscall)", total)
    }

    /// An fsync that fails (EIO) or a write that fails (ENOSPC), at every one of a scripted
    /// run: the logger says so on one line naming the file, keeps the points in memory and
    /// writes them with the next commit to a new segment (never trusting that file again);
    /// nothing is lost; a directory fsync that fails after a rename may leave one commit
    /// twice (at-least-once, journal-format.md section 8). The last commit failing is exit 74.
    @Test(arguments: ["fsync", "write"])
    func loggerSurvivesAFailureAtEverySystemCall(syscall: String) throws {
        let error = syscall == "fsync" ? "EIO" : "ENOSPC"
        let phrase = syscall == "fsync" ? "input/output error" : "no space left on device"
        let base = try ReliabilitySandbox(prefix: "overland-strace")
        let inputs = try Script.prepare(base)
        let countLog = base.directory.appending("count.log")
        let counting = base.directory.appending("counting")
        try copyTree(base.journal, to: counting)
        let clean = try Self.traced(base.log.executable, Script.arguments(base, journal: counting, inputs: inputs), inject: nil,
                                    environment: base.environment, log: countLog)
        #expect(clean.succeeded, "\(clean)")
        let total = try Self.calls(in: countLog, named: [syscall]).count
        var duplicated = 0
        var exits74 = 0
        for nth in 1...max(total, 1) {
            let sandbox = try ReliabilitySandbox(prefix: "overland-strace")
            try copyTree(base.journal, to: sandbox.journal)
            let log = sandbox.directory.appending("strace.log")
            let run = try Self.traced(sandbox.log.executable, Script.arguments(sandbox, inputs: inputs),
                                      inject: "\(syscall):error=\(error):when=\(nth)", environment: sandbox.environment, log: log)
            let calls = try Self.calls(in: log, named: [syscall, "write"])
            guard let failed = calls.first(where: \.injected) else {
                Issue.record("\(syscall) #\(nth): nothing injected")
                continue
            }
            let failedPath = failed.path ?? "?"
            let context = "\(error) at \(syscall) #\(nth) on \(failedPath)"
            // One clear line naming the file.
            let lines = run.stderrLines.filter { $0.hasPrefix("overland-log: ") }
            #expect(lines.first?.contains(phrase) == true && lines.first?.contains("'" + failedPath) == true,
                    "\(context): \(run.stderrText)")
            #expect(run.exitStatus == 0 || run.exitStatus == 74, "\(context): \(run)")
            if run.exitStatus == 74 {
                exits74 += 1
                #expect(run.stderrText.contains("the journal cannot be written"), "\(context): \(run.stderrText)")
            }
            // A file whose fsync failed is never written again.
            if syscall == "fsync", !failedPath.hasSuffix("/segments"), !failedPath.contains("/.tmp-"), let index = calls.firstIndex(where: \.injected) {
                let later = calls[(index + 1)...].filter { $0.name == "write" && $0.path == failedPath }
                #expect(later.isEmpty, "\(context): written again after its fsync failed")
            }
            #expect(try sandbox.verify().succeeded, "\(context)")
            let (records, issues) = try sandbox.records()
            #expect(issues.isEmpty, "\(context): \(issues)")
            // Every point, in order; a repeat only after a failed directory fsync.
            var seen = Set<Int>()
            var firsts: [Int] = []
            for record in records {
                guard let epoch = SyntheticDrive.index(ofRecord: record.line) else { continue }
                if seen.insert(epoch).inserted { firsts.append(epoch) } else { duplicated += 1 }
            }
            let everything = Array(Script.history) + Array(Script.range)
            if run.exitStatus == 0 {
                #expect(firsts == everything, "\(context): \(firsts.count) of \(everything.count) points")
            } else {
                #expect(firsts == Array(everything.prefix(firsts.count)) && firsts.count >= Script.history.count, "\(context)")
            }
            if records.count != seen.count {
                #expect(syscall == "fsync" && failedPath.hasSuffix("/segments"), "\(context): \(records.count - seen.count) repeats")
            }
            #expect(records.map(\.sequence) == (0..<UInt64(records.count)).map { $0 }, "\(context)")
            // The fault is gone: the next run appends after everything.
            try sandbox.logEpochs(Script.continuation)
            #expect(try sandbox.verify().succeeded, "\(context)")
            let continued = try sandbox.records().records.suffix(Script.continuation.count).compactMap { SyntheticDrive.index(ofRecord: $0.line) }
            #expect(continued == Array(Script.continuation), "\(context): the next run")
        }
        let area = "faults: overland-log, strace \(error) at every \(syscall)"
        Figures.record(area, "failures injected", total)
        Figures.record(area, "runs ending in exit 74 (the last commit failed)", exits74)
        Figures.record(area, "records stored twice (directory fsync failed after a rename)", duplicated)
    }

    // MARK: - overland journal seal

    @Test(arguments: ["fsync", "rename", "write"])
    func sealKilledAtEverySystemCall(syscall: String) throws {
        let base = try ReliabilitySandbox(prefix: "overland-strace")
        for part in 0..<4 { try base.logEpochs((part * 40)..<(part * 40 + 40)) }
        let before = try base.records().records
        let countLog = base.directory.appending("count.log")
        let counting = base.directory.appending("counting")
        try copyTree(base.journal, to: counting)
        let clean = try Self.traced(base.overland.executable, ["journal", "seal", "--journal", counting], inject: nil,
                                    environment: base.environment, log: countLog)
        #expect(clean.succeeded, "\(clean)")
        let total = try Self.calls(in: countLog, named: Self.names(syscall)).count
        for nth in 1...max(total, 1) {
            let journal = base.directory.appending("journal-\(nth)")
            try copyTree(base.journal, to: journal)
            let run = try Self.traced(base.overland.executable, ["journal", "seal", "--journal", journal],
                                      inject: "\(Self.injectSet(syscall)):signal=KILL:when=\(nth)", environment: base.environment,
                                      log: base.directory.appending("run-\(nth).log"))
            #expect(run.termination == .signaled(SIGKILL), "\(syscall) #\(nth): \(run)")
            #expect(try ReliabilitySandbox.read(journal).records == before, "\(syscall) #\(nth)")
            #expect(try base.verify(journal).succeeded)
            try base.logEpochs(160..<170, journal: journal)
            #expect(JournalInvariant.check(try ReliabilitySandbox.read(journal).records, context: "\(syscall) #\(nth)") == Array(0..<170))
        }
        Figures.record("crash: overland journal seal, strace kill at every system call", "kills at every \(syscall)", total)
    }
}
