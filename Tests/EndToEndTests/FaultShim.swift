import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A fault point of our own for multi-threaded programs: an LD_PRELOAD library, built at
/// test time with the toolchain's clang, that counts `fsync`, `rename` and `write` (to
/// regular files) over the whole process, whatever the thread, and at the Nth kills the
/// process with SIGKILL or fails the call with an errno. (strace counts injections per
/// thread, which cannot name "the Nth fsync" of overland-sync, whose work moves between
/// threads.)
///
///     OVERLAND_SHIM=fsync:KILL:7       the 7th fsync kills the process on entry
///     OVERLAND_SHIM=write:ENOSPC:3     the 3rd write to a regular file fails with ENOSPC
///     OVERLAND_SHIM_COUNT=FILE         at exit, "fsync N\nrename N\nwrite N\n" to FILE
enum FaultShim {
    static let source = #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <errno.h>
    #include <fcntl.h>
    #include <signal.h>
    #include <stdatomic.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/stat.h>
    #include <unistd.h>

    static atomic_long counts[3];
    static int armed = -1;
    static long target = 0;
    static int failure = 0; /* 0: SIGKILL, else the errno */
    static const char *names[3] = {"fsync", "rename", "write"};

    __attribute__((constructor)) static void shim_init(void) {
        const char *spec = getenv("OVERLAND_SHIM");
        if (!spec) return;
        char name[16] = {0}, action[16] = {0};
        long nth = 0;
        if (sscanf(spec, "%15[^:]:%15[^:]:%ld", name, action, &nth) != 3) return;
        for (int i = 0; i < 3; i++) if (strcmp(name, names[i]) == 0) armed = i;
        target = nth;
        if (strcmp(action, "KILL") == 0) failure = 0;
        else if (strcmp(action, "EIO") == 0) failure = EIO;
        else if (strcmp(action, "ENOSPC") == 0) failure = ENOSPC;
        else if (strcmp(action, "EROFS") == 0) failure = EROFS;
        else armed = -1;
    }

    __attribute__((destructor)) static void shim_report(void) {
        const char *path = getenv("OVERLAND_SHIM_COUNT");
        if (!path) return;
        char text[128];
        int length = snprintf(text, sizeof text, "fsync %ld\nrename %ld\nwrite %ld\n",
                              atomic_load(&counts[0]), atomic_load(&counts[1]), atomic_load(&counts[2]));
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ssize_t (*real)(int, const void *, size_t) = dlsym(RTLD_NEXT, "write");
            real(fd, text, (size_t)length);
            close(fd);
        }
    }

    /* 1 when this call must fail (errno set); kills the process on a KILL point. */
    static int shim_hit(int which) {
        long n = atomic_fetch_add(&counts[which], 1) + 1;
        if (which != armed || n != target) return 0;
        if (failure == 0) { kill(getpid(), SIGKILL); pause(); }
        errno = failure;
        return 1;
    }

    int fsync(int fd) {
        static int (*real)(int);
        if (!real) real = dlsym(RTLD_NEXT, "fsync");
        if (shim_hit(0)) return -1;
        return real(fd);
    }

    int rename(const char *from, const char *to) {
        static int (*real)(const char *, const char *);
        if (!real) real = dlsym(RTLD_NEXT, "rename");
        if (shim_hit(1)) return -1;
        return real(from, to);
    }

    ssize_t write(int fd, const void *bytes, size_t count) {
        static ssize_t (*real)(int, const void *, size_t);
        if (!real) real = dlsym(RTLD_NEXT, "write");
        struct stat info;
        if (fd > 2 && fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && shim_hit(2)) return -1;
        return real(fd, bytes, count);
    }
    """#

    /// The built library, or nil when no C compiler is at hand (`require` then fails the
    /// test, naming gcc and scripts/install-dependencies).
    static let library: String? = {
        let compilers = ["/usr/bin/cc", "/usr/bin/clang", "/usr/bin/gcc"]
        guard let compiler = Self.clangBesideSwift() ?? compilers.first(where: { access($0, X_OK) == 0 }) else { return nil }
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let directory = base + "/overland-fault-shim-\(getpid())"
        mkdir(directory, 0o700)
        let sourcePath = directory + "/shim.c"
        let libraryPath = directory + "/shim.so"
        guard (try? Data(source.utf8).write(to: URL(fileURLWithPath: sourcePath))) != nil,
              let built = try? ToolRunner(executable: compiler).run(["-shared", "-fPIC", "-O1", "-o", libraryPath, sourcePath, "-ldl"]),
              built.succeeded else { return nil }
        shimDirectory = directory
        atexit { if let directory = FaultShim.shimDirectory { _ = try? FileManager.default.removeItem(atPath: directory) } }
        return libraryPath
    }()

    nonisolated(unsafe) static var shimDirectory: String?

    /// The built library, or a failed test saying why it is not there.
    static func require(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(library, "no C compiler built the fault shim (Debian package gcc): run `bash scripts/install-dependencies`",
                     sourceLocation: sourceLocation)
    }

    /// The clang of the toolchain that runs this test (…/usr/bin/clang beside swift).
    static func clangBesideSwift() -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = String(directory) + "/clang"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The environment that arms the shim (`spec` nil: counting only, into `countFile`).
    static func environment(_ spec: String?, countFile: String? = nil) -> [String: String?] {
        ["LD_PRELOAD": library, "OVERLAND_SHIM": spec, "OVERLAND_SHIM_COUNT": countFile]
    }

    /// Reads a count file: calls by name.
    static func counts(_ path: String) -> [String: Int] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
        }
        return counts
    }
}

/// `overland-sync` killed, and made to fail, at every fsync, rename and file write of a
/// drain (counted over the whole process by the shim): the cursor always reads, the next
/// run finishes the drain, every point arrives at least once and in order, and only the
/// batch in flight is sent again.
@Suite struct FaultShimSyncTests {
    static let points = 300

    /// A journal ready to drain, its lines, and the number of `call`s a clean drain makes.
    static func prepare(_ call: String, server: LocalServer) throws -> (ReliabilitySandbox, [String], Int) {
        _ = try FaultShim.require()
        let base = try SyncCrashTests.prepare(points: points)
        let lines = try base.records().records.map(\.line)
        // A first drain (of a copy) creates this machine's registry of journals, whose new
        // directories are fsynced into their parents: every counted run below finds it made.
        let warming = base.directory.appending("warming")
        try copyTree(base.journal, to: warming)
        #expect(try base.sync.run(SyncCrashTests.syncArguments(base, server, journal: warming), environment: SyncCrashTests.environment).succeeded)
        let counting = base.directory.appending("counting")
        try copyTree(base.journal, to: counting)
        let countFile = base.directory.appending("counts")
        let clean = try base.sync.run(SyncCrashTests.syncArguments(base, server, journal: counting),
                                      environment: SyncCrashTests.environment.merging(FaultShim.environment(nil, countFile: countFile)) { $1 })
        #expect(clean.succeeded, "\(clean)")
        let total = FaultShim.counts(countFile)[call] ?? 0
        #expect(total > 0, "no \(call) in a drain")
        server.clearRequests()
        return (base, lines, total)
    }

    @Test(arguments: ["fsync", "rename", "write"])
    func syncKilledAtEveryCall(call: String) throws {
        let server = try LocalServer()
        let (base, lines, total) = try Self.prepare(call, server: server)
        for nth in 1...max(total, 1) {
            server.clearRequests()
            let journal = base.directory.appending("journal-\(nth)")
            try copyTree(base.journal, to: journal)
            let crashed = try base.sync.run(SyncCrashTests.syncArguments(base, server, journal: journal),
                                            environment: SyncCrashTests.environment.merging(FaultShim.environment("\(call):KILL:\(nth)")) { $1 })
            #expect(crashed.termination == .signaled(SIGKILL), "\(call) #\(nth): \(crashed)")
            #expect(try base.cursor(journal) <= UInt64(Self.points), "\(call) #\(nth)")
            let finished = try base.sync.run(SyncCrashTests.syncArguments(base, server, journal: journal), environment: SyncCrashTests.environment)
            #expect(finished.succeeded, "\(call) #\(nth): \(finished)")
            #expect(try base.cursor(journal) == UInt64(Self.points), "\(call) #\(nth)")
            Delivery(requests: server.requests, lines: lines).check(total: Self.points, maximumResends: 1, context: "\(call) #\(nth)")
            #expect(try base.verify(journal).succeeded, "\(call) #\(nth)")
        }
        Figures.record("crash: overland-sync, kill at every call (LD_PRELOAD fault shim)", "kills at every \(call)", total)
    }

    /// A failing fsync, rename or write of the cursor or the sync state: one line naming
    /// the file; the cursor never moves past what the server acknowledged; the next run
    /// sends the batch again (at most that one) and finishes.
    @Test(arguments: ["fsync:EIO", "write:ENOSPC", "rename:EROFS"])
    func syncSurvivesAFailureAtEveryCall(fault: String) throws {
        let call = String(fault.prefix { $0 != ":" })
        let server = try LocalServer()
        let (base, lines, total) = try Self.prepare(call, server: server)
        var exits74 = 0
        for nth in 1...max(total, 1) {
            server.clearRequests()
            let journal = base.directory.appending("journal-\(nth)")
            try copyTree(base.journal, to: journal)
            let failed = try base.sync.run(SyncCrashTests.syncArguments(base, server, journal: journal),
                                           environment: SyncCrashTests.environment.merging(FaultShim.environment("\(fault):\(nth)")) { $1 })
            let context = "\(fault) #\(nth)"
            #expect(failed.exitStatus == 0 || failed.exitStatus == 74, "\(context): \(failed)")
            let messages = failed.stderrLines
            if failed.exitStatus == 74 {
                exits74 += 1
                #expect(messages.count == 1 && messages[0].hasPrefix("overland-sync: ") && messages[0].contains("'\(journal)"),
                        "\(context): \(failed.stderrText)")
            } else {
                // Only a state file (times and backoff in the journal's state/, or this
                // machine's registry of journals for copy detection) could not be saved: a
                // warning naming it.
                let registry = base.directory.appending("state/overland")
                #expect(!messages.isEmpty && messages.allSatisfy { $0.contains("'\(journal)/state") || $0.contains("'" + registry) },
                        "\(context): \(failed.stderrText)")
            }
            let acknowledged = server.requests.count * 50
            #expect(try base.cursor(journal) <= UInt64(min(acknowledged, Self.points)), "\(context)")
            let finished = try base.sync.run(SyncCrashTests.syncArguments(base, server, journal: journal), environment: SyncCrashTests.environment)
            #expect(finished.succeeded, "\(context): \(finished)")
            #expect(try base.cursor(journal) == UInt64(Self.points), "\(context)")
            Delivery(requests: server.requests, lines: lines).check(total: Self.points, maximumResends: 1, context: context)
            #expect(try base.verify(journal).succeeded, "\(context)")
            Torture.checkPermissions(journal)
        }
        Figures.record("faults: overland-sync, EIO/ENOSPC/EROFS at every fsync/write/rename (fault shim)", "failures injected", total)
        Figures.record("faults: overland-sync, EIO/ENOSPC/EROFS at every fsync/write/rename (fault shim)", "runs ending in exit 74", exits74)
    }
}
