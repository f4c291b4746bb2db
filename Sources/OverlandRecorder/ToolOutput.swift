#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs a short-lived system tool (`iw`, `iwgetid`) and returns what it printed, without
/// Foundation's `Process` (which would link Foundation and ICU into every command).
///
/// The child gets /dev/null for standard input and error, no blocked signals and default
/// dispositions (the logger blocks SIGTERM, SIGINT and SIGHUP, and a child would inherit
/// that), and the caller's environment.
enum ToolOutput {
    /// The first executable `tool` on PATH (or /usr/bin:/bin without one), then in
    /// /usr/sbin and /sbin, where the wireless tools live.
    static func find(_ tool: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for directory in (path + ":/usr/sbin:/sbin").split(separator: ":") {
            let candidate = "\(directory)/\(tool)"
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Standard output of `executable arguments...` (its first `limit` bytes) if it ran and
    /// exited 0; nil otherwise. Output past the limit is read and dropped, so the child
    /// never blocks on a full pipe.
    static func run(_ executable: String, _ arguments: [String], limit: Int = 4096) -> [UInt8]? {
        var fds: [Int32] = [-1, -1]
        // pipe2 is not in Glibc's Swift overlay; no other thread of ours spawns, so setting
        // close-on-exec right after is as good (the child gets the write end by dup2 only).
        guard pipe(&fds) == 0 else { return nil }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            return nil
        }

        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count > 0 {
                if output.count < limit { output += chunk[0..<min(count, limit - output.count)] }
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(readEnd)

        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        // Exited (low 7 bits zero) with status 0.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else { return nil }
        return output
    }
}
