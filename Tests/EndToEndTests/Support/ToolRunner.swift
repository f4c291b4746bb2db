import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs the package's built executables (or any program) for end-to-end tests: arguments,
/// environment and standard input in; exit status or signal, standard output and standard
/// error out. `start` runs a child in the background to read its output line by line and
/// kill it at a chosen moment.
///
///     let result = try ToolRunner(product: "overland").run(["--help"])
///     #expect(result.termination == .exited(0))
///
/// Built products are found next to the test process itself (`/proc/self/exe` is
/// `.build/debug/<package>PackageTests.xctest`), so tests run whatever `swift build` made.
struct ToolRunner: Sendable {
    /// How long a test waits for an event (a line, an exit, a file, a listener) before it
    /// calls the wait hung: a guard against a hang, never a measure of speed. Generous
    /// enough that no load reaches it (a run that takes a second idle took a minute at
    /// load 6-8 on two cores); a test about timing injects its clock or sets its own.
    static let hangGuard: Duration = .seconds(600)

    /// The directory of the built products (`.build/debug`).
    static let productsDirectory: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(length > 0, "cannot read /proc/self/exe")
        let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<path.lastIndex(of: "/")!])
    }()

    /// The program's absolute path.
    let executable: String
    /// Variables added to (or, with a nil value, removed from) the test process's environment.
    var environment: [String: String?] = [:]

    /// A product of this package, e.g. `ToolRunner(product: "overland-log")`.
    init(product name: String) {
        executable = Self.productsDirectory + "/" + name
    }

    /// Any program by absolute path, e.g. `/bin/gzip`.
    init(executable: String) {
        self.executable = executable
    }

    /// True when the executable exists (a product not built, a tool not installed).
    var isAvailable: Bool { access(executable, X_OK) == 0 }

    /// Runs to the end. The child is killed (SIGKILL) and `timedOut` set if it runs longer
    /// than `timeout`.
    func run(_ arguments: [String], environment extra: [String: String?] = [:], stdin: [UInt8]? = nil,
             timeout: Duration = ToolRunner.hangGuard) throws -> ToolResult {
        let child = try start(arguments, environment: extra, stdin: stdin != nil)
        if let stdin { child.writeInput(stdin) }
        child.closeInput()
        return child.wait(timeout: timeout)
    }

    /// Runs `run` with text on standard input.
    func run(_ arguments: [String], environment extra: [String: String?] = [:], stdinText: String,
             timeout: Duration = ToolRunner.hangGuard) throws -> ToolResult {
        try run(arguments, environment: extra, stdin: Array(stdinText.utf8), timeout: timeout)
    }

    /// Starts the program in the background, in its own process group. Without `stdin` the
    /// child reads /dev/null.
    func start(_ arguments: [String], environment extra: [String: String?] = [:], stdin: Bool = false) throws -> RunningTool {
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment.merging(extra, uniquingKeysWith: { $1 }) { merged[key] = value }
        return try RunningTool(executable: executable, arguments: arguments, environment: merged, pipeStdin: stdin)
    }
}

/// How a child ended.
enum Termination: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    var description: String {
        switch self {
        case .exited(let status): return "exit \(status)"
        case .signaled(let signal): return "signal \(signal)"
        }
    }
}

/// The outcome of a finished child.
struct ToolResult: Sendable, CustomStringConvertible {
    var termination: Termination
    var stdout: [UInt8]
    var stderr: [UInt8]
    /// The child outlived its timeout and was killed.
    var timedOut = false

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    /// Standard output split into lines (without the final empty one).
    var stdoutLines: [String] { Self.lines(stdoutText) }
    var stderrLines: [String] { Self.lines(stderrText) }
    var exitStatus: Int32? { if case .exited(let status) = termination { return status } else { return nil } }
    var signal: Int32? { if case .signaled(let signal) = termination { return signal } else { return nil } }
    var succeeded: Bool { termination == .exited(0) && !timedOut }

    var description: String {
        "\(termination)\(timedOut ? " (timed out)" : ""); stdout \(stdout.count) bytes; stderr: \(stderrText.prefix(2000))"
    }

    static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

extension ToolResult {
    /// The one way a test expects how a command ended: exit `status`, not timed out. A
    /// command returns one status for one input, so a test names that one (never `a || b`);
    /// the issue recorded shows the whole result.
    func expectExit(_ status: Int32, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(termination == .exited(status) && !timedOut,
                "\(context.isEmpty ? "" : context + ": ")expected exit \(status); \(self)", sourceLocation: sourceLocation)
    }
}

struct ToolRunnerError: Error, CustomStringConvertible {
    let description: String
}

/// A child process started by `ToolRunner.start`. Not thread-safe: one test drives it.
final class RunningTool: @unchecked Sendable {
    let pid: pid_t
    private var stdinFD: Int32 = -1
    private var stdoutFD: Int32
    private var stderrFD: Int32
    private var stdoutBuffer: [UInt8] = []
    private var stdoutConsumed = 0
    private var stderrBuffer: [UInt8] = []
    private var termination: Termination?

    fileprivate init(executable: String, arguments: [String], environment: [String: String], pipeStdin: Bool) throws {
        func makePipe() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [0, 0]
            guard systemPipe2(&fds, O_CLOEXEC) == 0 else { throw ToolRunnerError(description: "pipe: errno \(errno)") }
            return (fds[0], fds[1])
        }
        let output = try makePipe()
        let errors = try makePipe()
        let input = pipeStdin ? try makePipe() : nil

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            posix_spawn_file_actions_adddup2(&actions, input.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
        // Nothing else of the test process reaches the child: a listening socket of another
        // test's server (NIO's are not close-on-exec) inherited by a long-lived child (a
        // mosquitto) would keep accepting connections meant to be refused after that server
        // stopped, and hold its port.
        closeFromThree(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Own process group (so `kill(group:)` reaches grandchildren), no blocked signals,
        // default dispositions (the test process ignores SIGPIPE; the child must not).
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(output.write)
        close(errors.write)
        if let input { close(input.read) }
        guard status == 0 else {
            close(output.read)
            close(errors.read)
            if let input { close(input.write) }
            throw ToolRunnerError(description: "cannot run \(executable): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        stdoutFD = output.read
        stderrFD = errors.read
        if let input { stdinFD = input.write }
    }

    deinit {
        if termination == nil {
            _ = Glibc.kill(-pid, SIGKILL)
            _ = Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        for fd in [stdinFD, stdoutFD, stderrFD] where fd >= 0 { close(fd) }
    }

    /// Writes to the child's standard input (started with `stdin: true`).
    func writeInput(_ bytes: [UInt8]) {
        guard stdinFD >= 0 else { return }
        var offset = 0
        while offset < bytes.count {
            // Keep reading output meanwhile, so a chatty child cannot block us both.
            var fds = [pollfd(fd: stdinFD, events: Int16(POLLOUT), revents: 0),
                       pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)]
            if stdoutFD < 0 { fds[1].events = 0 }
            if stderrFD < 0 { fds[2].events = 0 }
            _ = poll(&fds, nfds_t(fds.count), 1000)
            if fds[1].revents != 0 { pump(&stdoutFD, into: &stdoutBuffer) }
            if fds[2].revents != 0 { pump(&stderrFD, into: &stderrBuffer) }
            if fds[0].revents & Int16(POLLERR | POLLHUP) != 0 { break }
            if fds[0].revents & Int16(POLLOUT) != 0 {
                let written = bytes.withUnsafeBytes { Glibc.write(stdinFD, $0.baseAddress! + offset, min(bytes.count - offset, 65536)) }
                if written < 0 && errno != EINTR && errno != EAGAIN { break }
                if written > 0 { offset += written }
            }
        }
    }

    /// Closes the child's standard input (end of input).
    func closeInput() {
        if stdinFD >= 0 { close(stdinFD) }
        stdinFD = -1
    }

    /// Sends a signal to the child (SIGKILL by default).
    func kill(_ signal: Int32 = SIGKILL) {
        guard termination == nil else { return }
        _ = Glibc.kill(pid, signal)
    }

    /// Sends a signal to the child's whole process group.
    func killGroup(_ signal: Int32 = SIGKILL) {
        guard termination == nil else { return }
        _ = Glibc.kill(-pid, signal)
    }

    /// The next line of standard output (without its newline), nil at end of output, or
    /// nil with `timedOut` when none came in time.
    func readLine(timeout: Duration = ToolRunner.hangGuard) -> (line: String?, timedOut: Bool) {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = stdoutBuffer[stdoutConsumed...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: stdoutBuffer[stdoutConsumed..<newline], as: UTF8.self)
                stdoutConsumed = newline + 1
                return (line, false)
            }
            if stdoutFD < 0 {
                // A last line without a newline.
                if stdoutConsumed < stdoutBuffer.count {
                    let line = String(decoding: stdoutBuffer[stdoutConsumed...], as: UTF8.self)
                    stdoutConsumed = stdoutBuffer.count
                    return (line, false)
                }
                return (nil, false)
            }
            if ContinuousClock.now >= deadline { return (nil, true) }
            pollOutput(until: deadline)
        }
    }

    /// Bytes written to standard input that the child has not read yet (0 once closed).
    var unreadInput: Int32 {
        guard stdinFD >= 0 else { return 0 }
        var count: Int32 = 0
        _ = ioctl(stdinFD, UInt(FIONREAD), &count)
        return count
    }

    /// Standard error so far.
    var stderrSoFar: String { String(decoding: stderrBuffer, as: UTF8.self) }

    /// Waits until standard error holds `text` (the event a test waits for: a message the
    /// tool prints when it gets there), `count` times; false when the tool ended, or the
    /// hang guard passed, without it.
    func waitForStderr(containing text: String, count: Int = 1, timeout: Duration = ToolRunner.hangGuard) -> Bool {
        let deadline = ContinuousClock.now + timeout
        func seen() -> Bool { stderrSoFar.components(separatedBy: text).count - 1 >= count }
        while !seen() {
            guard stderrFD >= 0, ContinuousClock.now < deadline else { return seen() }
            pollOutput(until: deadline)
        }
        return true
    }

    /// Waits until `condition` holds (an event outside the child's output: a file grew,
    /// a server got a request), reading the child's output meanwhile so that `stderrSoFar`
    /// is current; false when the hang guard passed first.
    func waitUntil(timeout: Duration = ToolRunner.hangGuard, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            pollOutput(until: min(deadline, ContinuousClock.now + .milliseconds(10)))
        }
        return true
    }

    /// Waits for the child to end (killing it after `timeout`) and returns everything it
    /// printed, including lines already taken with `readLine`.
    func wait(timeout: Duration = ToolRunner.hangGuard) -> ToolResult {
        closeInput()
        let deadline = ContinuousClock.now + timeout
        var timedOut = false
        while stdoutFD >= 0 || stderrFD >= 0 {
            if ContinuousClock.now >= deadline && !timedOut {
                timedOut = true
                killGroup()
                // Descendants may keep the pipes open: give up on them shortly after.
                let grace = ContinuousClock.now + .seconds(2)
                while (stdoutFD >= 0 || stderrFD >= 0) && ContinuousClock.now < grace { pollOutput(until: grace) }
                break
            }
            pollOutput(until: deadline)
        }
        let ended = reap()
        return ToolResult(termination: ended, stdout: stdoutBuffer, stderr: stderrBuffer, timedOut: timedOut)
    }

    private func reap() -> Termination {
        if let termination { return termination }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        let ended: Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
        termination = ended
        return ended
    }

    private func pollOutput(until deadline: ContinuousClock.Instant) {
        let remaining = deadline - ContinuousClock.now
        let milliseconds = max(0, min(1000, Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)))
        var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, nfds_t(fds.count), milliseconds)
        guard ready > 0 else { return }
        if fds[0].revents != 0 { pump(&stdoutFD, into: &stdoutBuffer) }
        if fds[1].revents != 0 { pump(&stderrFD, into: &stderrBuffer) }
    }

    /// Reads what is available; closes the descriptor at end of file.
    private func pump(_ fd: inout Int32, into buffer: inout [UInt8]) {
        guard fd >= 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
        } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
            close(fd)
            fd = -1
        }
    }
}

/// pipe2(2): Glibc's module map leaves it out (it needs _GNU_SOURCE). Close-on-exec from
/// the start matters: tests run in parallel, and a pipe end leaked into another test's child
/// would keep a reader from ever seeing end of file.
@_silgen_name("pipe2")
private func systemPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// `posix_spawn_file_actions_addclosefrom_np(actions, 3)` (glibc 2.34; Swift's Glibc module
/// does not declare it, so it is looked up): the child closes every descriptor above 2.
private func closeFromThree(_ actions: inout posix_spawn_file_actions_t) {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        preconditionFailure("posix_spawn_file_actions_addclosefrom_np is missing: glibc 2.34 or later is needed")
    }
    let status = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
    precondition(status == 0, "posix_spawn_file_actions_addclosefrom_np: \(status)")
}

