import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The Debian package, as a user gets it: `scripts/package` builds it (here from the debug
/// build's executables, so no release build is needed), `dpkg -i` installs it into a fresh
/// root (its own dpkg database, the maintainer scripts run with DPKG_ROOT), and the
/// installed commands, pages, completions and units are used from there.
@Suite(.serialized) struct PackageTests {
    /// Built and installed once for all the tests below.
    static let installed: Result<InstalledPackage, ToolRunnerError> = Result { try InstalledPackage.make() }
        .mapError { $0 as? ToolRunnerError ?? ToolRunnerError(description: "\($0)") }

    func package() throws -> InstalledPackage { try Self.installed.get() }

    @Test func dpkgRecordsItInstalled() throws {
        let package = try package()
        let status = try package.dpkg(["--status", "overland"])
        #expect(status.succeeded, "\(status)")
        #expect(status.stdoutText.contains("Status: install ok installed"))
        #expect(status.stdoutText.contains("Depends: libc6 (>= 2.36)"))
        let listed = try package.dpkg(["--listfiles", "overland"])
        for path in ["/usr/bin/overland", "/usr/bin/overland-log", "/usr/bin/overland-sync",
                     "/lib/systemd/system/overland-sync.timer", "/etc/default/overland",
                     "/usr/share/overland/default-overland-log"] {
            #expect(listed.stdoutLines.contains(path), "dpkg -L lacks \(path)")
        }
    }

    @Test func installedCommandsAnswerAsThemselves() throws {
        let package = try package()
        let version = try package.run("overland", ["--version"])
        #expect(version.succeeded, "\(version)")
        #expect(version.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == package.version)
        for command in ["overland", "overland-log", "overland-sync"] {
            let help = try package.run(command, ["--help"])
            #expect(help.succeeded, "\(command) --help: \(help)")
            #expect(help.stdoutText.contains("USAGE: \(command) "), "\(command) --help: \(help.stdoutText.prefix(300))")
        }
        // The links are one executable, not copies.
        #expect(try package.linkTarget("/usr/bin/overland-log") == "overland")
        #expect(try package.linkTarget("/usr/bin/overland-sync") == "overland")
    }

    @Test func installedLoggerLogsTheSampleAndStatusSeesIt() throws {
        let package = try package()
        let work = try TemporaryDirectory(prefix: "overland-package-run")
        let journal = work.appending("journal")
        let environment: [String: String?] = [
            "XDG_CONFIG_HOME": work.appending("config"), "XDG_DATA_HOME": work.appending("data"),
            "OVERLAND_JOURNAL": nil, "OVERLAND_CONFIG": nil, "OVERLAND_URL": nil, "OVERLAND_TOKEN": nil,
        ]
        let log = try package.run("overland-log", ["--journal", journal, "--stats", PackageSupport.repository + "/samples/quectel-l76k.nmea"],
                                  environment: environment)
        #expect(log.succeeded, "\(log)")
        let stats = try package.run("overland", ["journal", "stats", "--journal", journal, "--json"], environment: environment)
        #expect(stats.succeeded, "\(stats)")
        let object = try JSONScan.object(stats.stdout)
        let points = try #require(object?["records"] as? Int, "\(stats.stdoutText)")
        #expect(points > 0)
        let status = try package.run("overland", ["status", "--journal", journal, "--json"], environment: environment)
        #expect(status.succeeded, "\(status)")
        let sync = try package.run("overland-sync", ["--journal", journal, "--dry-run"],
                                   environment: environment.merging(["OVERLAND_URL": "http://127.0.0.1:9/api"]) { $1 })
        #expect(sync.succeeded, "\(sync)")
        #expect(sync.stdoutText.contains("127.0.0.1:9"), "\(sync.stdoutText.prefix(500))")
    }

    /// The installed link runs the logger inside the multi-call executable's async entry
    /// point: SIGTERM must still make it commit and exit 0, as systemd stops it.
    @Test func installedLoggerCommitsOnSIGTERM() throws {
        let package = try package()
        let work = try TemporaryDirectory(prefix: "overland-package-term")
        let journal = work.appending("journal")
        let environment: [String: String?] = [
            "XDG_CONFIG_HOME": work.appending("config"), "XDG_DATA_HOME": work.appending("data"),
            "OVERLAND_JOURNAL": nil, "OVERLAND_CONFIG": nil,
        ]
        let sample = try [UInt8](Data(contentsOf: URL(fileURLWithPath: PackageSupport.repository + "/samples/quectel-l76k.nmea")))
        let logger = try ToolRunner(executable: package.root + "/usr/bin/overland-log")
            .start(["--journal", journal, "--commit-interval", "3600"], environment: environment, stdin: true)
        logger.writeInput(sample)
        // Until the journal exists the logger has not read its input yet.
        for _ in 0..<100 where access(journal + "/segments", F_OK) != 0 { usleep(50_000) }
        sleep(2)
        logger.kill(SIGTERM)
        let result = logger.wait()
        #expect(result.termination == .exited(0), "\(result)")
        let stats = try package.run("overland", ["journal", "stats", "--journal", journal, "--json"], environment: environment)
        let object = try JSONScan.object(stats.stdout)
        let records = try #require(object?["records"] as? Int, "\(stats)")
        #expect(records > 0, "nothing committed before exit")
    }

    @Test func postinstMadeTheSystemUserAndItsState() throws {
        let package = try package()
        let passwd = try String(contentsOfFile: package.root + "/etc/passwd", encoding: .utf8)
        let entry = try #require(passwd.split(separator: "\n").first { $0.hasPrefix("overland:") }, "\(passwd)")
        let fields = entry.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        try #require(fields.count == 7, "\(entry)")
        #expect(Int(fields[2]).map { $0 > 0 && $0 < 1000 } == true, "a system uid: \(entry)")
        #expect(fields[5] == "/var/lib/overland")
        #expect(fields[6] == "/usr/sbin/nologin")
        let group = try String(contentsOfFile: package.root + "/etc/group", encoding: .utf8)
        #expect(group.split(separator: "\n").contains { $0.hasPrefix("overland:") }, "\(group)")
        let state = try #require(PackageSupport.stat(package.root + "/var/lib/overland"))
        #expect(state.st_mode & 0o7777 == 0o700)
        #expect(String(state.st_uid) == fields[2])
    }

    @Test func unitsPassSystemdAnalyzeVerify() throws {
        let package = try package()
        let units = ["overland-log.service", "overland-log@ttyUSB0.service", "overland-sync.service", "overland-sync.timer"]
        // What the units lean on in a real system: systemd's own units (sysinit.target...)
        // and the programs their ExecStart lines name besides ours, copied from this one.
        try FileManager.default.createDirectory(atPath: package.root + "/usr/lib/systemd/system", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: package.root + "/bin", withIntermediateDirectories: true)
        let copy = try ToolRunner(executable: PackageSupport.tool("cp"))
            .run(["-a", "/lib/systemd/system/.", package.root + "/usr/lib/systemd/system/"])
        #expect(copy.succeeded, "\(copy)")
        let verify = try ToolRunner(executable: PackageSupport.tool("systemd-analyze"))
            .run(["verify", "--man=no", "--root=" + package.root] + units.map { "/lib/systemd/system/" + $0 })
        #expect(verify.succeeded, "\(verify)")
        #expect(verify.stderrText.isEmpty, "\(verify.stderrText)")

        let timer = try String(contentsOfFile: package.root + "/lib/systemd/system/overland-sync.timer", encoding: .utf8)
        #expect(timer.contains("OnCalendar=*-*-* *:*:00"))
        #expect(timer.contains("Persistent=true"))
        for unit in ["overland-log.service", "overland-log@.service", "overland-sync.service"] {
            let text = try String(contentsOfFile: package.root + "/lib/systemd/system/" + unit, encoding: .utf8)
            for setting in ["User=overland", "ProtectSystem=strict", "ReadWritePaths=/var/lib/overland", "NoNewPrivileges=yes",
                            "PrivateTmp=yes", "ProtectHome=yes", "RestrictAddressFamilies=", "StateDirectory=overland"] {
                #expect(text.contains(setting), "\(unit) lacks \(setting)")
            }
        }
        let serial = try String(contentsOfFile: package.root + "/lib/systemd/system/overland-log@.service", encoding: .utf8)
        #expect(serial.contains("SupplementaryGroups=dialout"))
        #expect(serial.contains("DeviceAllow=/dev/%I rw"))
        // overland-log opens the port itself (raw mode, --baud): no stty, no shell.
        #expect(execLines(serial) == ["ExecStart=/usr/bin/overland-log /dev/%I --baud ${OVERLAND_SERIAL_SPEED}"], "\(execLines(serial))")
        #expect(serial.contains("Environment=OVERLAND_SERIAL_SPEED=9600"))
        // The gpsd unit speaks gpsd's protocol itself: no gpspipe, no shell; it wants gpsd's
        // socket and may reach it over TCP on the loopback.
        let gpsd = try String(contentsOfFile: package.root + "/lib/systemd/system/overland-log.service", encoding: .utf8)
        #expect(execLines(gpsd) == ["ExecStart=/usr/bin/overland-log --gpsd"], "\(execLines(gpsd))")
        #expect(gpsd.contains("Wants=gpsd.socket") && gpsd.contains("After=gpsd.socket"))
        let families = gpsd.split(separator: "\n").first { $0.hasPrefix("RestrictAddressFamilies=") }.map(String.init) ?? ""
        #expect(families.contains("AF_INET ") && families.contains("AF_INET6"), "\(families)")
    }

    /// Issue 21: every service scores 1.0 or less in `systemd-analyze security` (1.6 and
    /// 1.7 before), with what the issue asked for; the loggers do not read the token's file.
    @Test func unitsAreExposedAtMostOnePointZero() throws {
        let package = try package()
        let analyze = try PackageSupport.tool("systemd-analyze")
        for unit in ["overland-log.service", "overland-log@.service", "overland-sync.service"] {
            let path = package.root + "/lib/systemd/system/" + unit
            let result = try ToolRunner(executable: analyze).run(["security", "--offline=true", "--no-pager", path], timeout: .seconds(120))
            #expect(result.succeeded, "\(unit): \(result)")
            let overall = try #require(result.stdoutLines.first { $0.contains("Overall exposure level for") }, "\(result.stdoutText)")
            let level = try #require(overall.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }, "\(overall)")
            #expect(level <= 1.0, "\(unit): \(overall)\n\(result.stdoutLines.filter { $0.hasPrefix("✗") }.joined(separator: "\n"))")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for setting in ["SystemCallFilter=~@privileged @resources", "PrivateUsers=yes", "RemoveIPC=yes", "ProcSubset=pid",
                            "IPAddressDeny=any"] {
                #expect(text.contains(setting), "\(unit) lacks \(setting)")
            }
            let environment = text.split(separator: "\n").filter { $0.hasPrefix("EnvironmentFile=") }
            if unit.hasPrefix("overland-log") {
                #expect(environment == ["EnvironmentFile=-/etc/default/overland-log"], "\(unit): \(environment)")
            } else {
                #expect(environment == ["EnvironmentFile=-/etc/default/overland-log", "EnvironmentFile=-/etc/default/overland"])
                for setting in ["TimeoutStartSec=5min", "MemoryMax=64M", "ExecStart=/usr/bin/overland-sync --max-time 240"] {
                    #expect(text.contains(setting), "\(unit) lacks \(setting)")
                }
            }
        }
    }

    /// The loggers' environment file: made by postinst from the template, 0644, without the
    /// token; on an upgrade from a version whose loggers read /etc/default/overland, what they
    /// took from there (device id, serial speed) is carried over, the url and token are not.
    @Test func postinstMakesTheLoggersEnvironmentAndCarriesOverAnOlderInstallsSettings() throws {
        let package = try package()
        let fresh = package.root + "/etc/default/overland-log"
        let template = try String(contentsOfFile: package.root + "/usr/share/overland/default-overland-log", encoding: .utf8)
        #expect(try String(contentsOfFile: fresh, encoding: .utf8) == template)
        #expect(PackageSupport.stat(fresh).map { $0.st_mode & 0o7777 } == 0o644)

        // An older install: no overland-log file, the loggers' settings beside the token.
        let upgraded = try TemporaryDirectory(prefix: "overland-upgrade")
        let root = upgraded.appending("root")
        try PackageSupport.makeEmptyRoot(root)
        try FileManager.default.createDirectory(atPath: root + "/usr/share/overland", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/etc/default", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/var/lib/overland", withIntermediateDirectories: true)
        try Data(template.utf8).write(to: URL(fileURLWithPath: root + "/usr/share/overland/default-overland-log"))
        let old = "OVERLAND_URL=https://gps.example/api?key=abc\nOVERLAND_TOKEN=s3cr3t-old-token\n"
            + "OVERLAND_DEVICE_ID=van-7\n#OVERLAND_SERIAL_SPEED=9600\nOVERLAND_SERIAL_SPEED=4800\n"
        try Data(old.utf8).write(to: URL(fileURLWithPath: root + "/etc/default/overland"))
        for (user, line) in [("passwd", "overland:x:998:998:overland:/var/lib/overland:/usr/sbin/nologin\n"),
                             ("group", "overland:x:998:\n")] {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: root + "/etc/" + user))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(line.utf8))
            try handle.close()
        }
        // The packaged maintainer script, as dpkg keeps it.
        let script = package.admindir + "/info/overland.postinst"
        let postinst = try ToolRunner(executable: script).run(["configure", "0.9"], environment: ["DPKG_ROOT": root], timeout: .seconds(60))
        #expect(postinst.succeeded, "\(postinst)")
        let made = try String(contentsOfFile: root + "/etc/default/overland-log", encoding: .utf8)
        #expect(made.hasPrefix(template))
        #expect(made.hasSuffix("# Carried over from /etc/default/overland on upgrade:\nOVERLAND_DEVICE_ID=van-7\nOVERLAND_SERIAL_SPEED=4800\n"),
                "\(made)")
        #expect(!made.contains("s3cr3t") && !made.contains("OVERLAND_URL"), "\(made)")
        // Run again (a later upgrade): the admin's file is left as it is.
        try Data("OVERLAND_DEVICE_ID=mine\n".utf8).write(to: URL(fileURLWithPath: root + "/etc/default/overland-log"))
        let again = try ToolRunner(executable: script).run(["configure", "1.0"], environment: ["DPKG_ROOT": root], timeout: .seconds(60))
        #expect(again.succeeded, "\(again)")
        #expect(try String(contentsOfFile: root + "/etc/default/overland-log", encoding: .utf8) == "OVERLAND_DEVICE_ID=mine\n")
    }

    /// The Exec lines of a unit (ExecStart=, ExecStartPre=, ...).
    private func execLines(_ unit: String) -> [String] {
        unit.split(separator: "\n").map(String.init).filter { $0.hasPrefix("Exec") }
    }

    @Test func manPagesAndCompletionsDescribeEachCommand() throws {
        let package = try package()
        for command in ["overland", "overland-log", "overland-sync"] {
            let page = try ToolRunner(executable: PackageSupport.tool("gzip"))
                .run(["-dc", package.root + "/usr/share/man/man1/\(command).1.gz"])
            #expect(page.succeeded, "\(page)")
            #expect(page.stdoutText.contains(".TH \"\(command.uppercased())\" 1"), "\(command).1")
            let bash = try String(contentsOfFile: package.root + "/usr/share/bash-completion/completions/" + command, encoding: .utf8)
            #expect(bash.contains("complete") && bash.contains(command), "bash completion of \(command)")
            let zsh = try String(contentsOfFile: package.root + "/usr/share/zsh/vendor-completions/_" + command, encoding: .utf8)
            #expect(zsh.hasPrefix("#compdef \(command)"), "zsh completion of \(command)")
            let fish = try String(contentsOfFile: package.root + "/usr/share/fish/vendor_completions.d/\(command).fish", encoding: .utf8)
            #expect(fish.contains("complete -c '\(command)'") || fish.contains("complete -c \(command)"), "fish completion of \(command)")
        }
        // Each page is its own command's: the options differ.
        let logPage = try ToolRunner(executable: PackageSupport.tool("gzip")).run(["-dc", package.root + "/usr/share/man/man1/overland-log.1.gz"])
        #expect(logPage.stdoutText.contains("\\-\\-commit\\-interval"))
        let syncPage = try ToolRunner(executable: PackageSupport.tool("gzip")).run(["-dc", package.root + "/usr/share/man/man1/overland-sync.1.gz"])
        #expect(syncPage.stdoutText.contains("\\-\\-dry\\-run"))
        #expect(!syncPage.stdoutText.contains("\\-\\-commit\\-interval"))
        let controlPage = try ToolRunner(executable: PackageSupport.tool("gzip")).run(["-dc", package.root + "/usr/share/man/man1/overland.1.gz"])
        #expect(controlPage.stdoutText.contains(".SS overland status"))
    }

    @Test func fileModesAndOwners() throws {
        let package = try package()
        let expected: [(String, UInt32)] = [
            ("/usr/bin/overland", 0o755), ("/etc/default/overland", 0o600),
            ("/lib/systemd/system/overland-log.service", 0o644), ("/lib/systemd/system/overland-log@.service", 0o644),
            ("/lib/systemd/system/overland-sync.service", 0o644), ("/lib/systemd/system/overland-sync.timer", 0o644),
            ("/usr/share/man/man1/overland.1.gz", 0o644), ("/usr/share/bash-completion/completions/overland", 0o644),
            ("/usr/share/doc/overland/copyright", 0o644), ("/usr/share/overland/default-overland-log", 0o644),
        ]
        for (path, mode) in expected {
            let info = try #require(PackageSupport.stat(package.root + path), "\(path) is missing")
            #expect(info.st_mode & 0o7777 == mode, "\(path): mode \(String(info.st_mode & 0o7777, radix: 8))")
            #expect(info.st_uid == 0 && info.st_gid == 0, "\(path): owner \(info.st_uid):\(info.st_gid)")
        }
        // Stripped: no debug sections left in the installed executable.
        let sections = try ToolRunner(executable: PackageSupport.tool("readelf")).run(["-S", "-W", package.root + "/usr/bin/overland"])
        #expect(sections.succeeded, "\(sections)")
        #expect(!sections.stdoutText.contains(".debug_info"))
    }
}

/// A package built by scripts/package and installed with dpkg into a temporary root.
struct InstalledPackage: Sendable {
    let directory: TemporaryDirectory
    let root: String
    let version: String

    var admindir: String { root + "/var/lib/dpkg" }

    static func make() throws -> InstalledPackage {
        let directory = try TemporaryDirectory(prefix: "overland-package")
        let output = directory.appending("out")
        let built = try ToolRunner(executable: PackageSupport.repository + "/scripts/package")
            .run(["--bin-dir", ToolRunner.productsDirectory, "--output", output], timeout: .seconds(900))
        guard built.succeeded, let deb = built.stdoutLines.last, deb.hasSuffix(".deb") else {
            throw ToolRunnerError(description: "scripts/package: \(built)")
        }
        let root = directory.appending("root")
        try PackageSupport.makeEmptyRoot(root)
        let package = InstalledPackage(directory: directory, root: root,
                                       version: String(deb.split(separator: "/").last!.split(separator: "_")[1]))
        // --force-depends: the fresh root's database has no libc6; --force-script-chrootless:
        // the root has no shell to chroot into, so the maintainer scripts run here with
        // DPKG_ROOT set, as they are written to.
        let install = try package.dpkg(["--force-depends", "--force-script-chrootless", "--install", deb])
        guard install.succeeded else { throw ToolRunnerError(description: "dpkg -i: \(install)") }
        return package
    }

    /// dpkg on this root and its own database, as root (under fakeroot when the tests are not).
    func dpkg(_ arguments: [String]) throws -> ToolResult {
        let dpkg = try PackageSupport.tool("dpkg")
        let command = ["--root=" + root, "--admindir=" + admindir, "--log=" + root + "/var/log/dpkg.log"] + arguments
        let environment: [String: String?] = ["PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]
        if getuid() == 0 {
            return try ToolRunner(executable: dpkg).run(command, environment: environment)
        }
        return try ToolRunner(executable: try PackageSupport.tool("fakeroot"))
            .run([dpkg] + command, environment: environment)
    }

    /// An installed command, run by its path in the root.
    func run(_ command: String, _ arguments: [String], environment: [String: String?] = [:]) throws -> ToolResult {
        try ToolRunner(executable: root + "/usr/bin/" + command).run(arguments, environment: environment)
    }

    func linkTarget(_ path: String) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: root + path)
    }
}

enum PackageSupport {
    /// `<repo>/Tests/EndToEndTests/PackageTests.swift` -> `<repo>`.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// A program from the system (scripts/install-dependencies installs them), by absolute path.
    static func tool(_ name: String) throws -> String {
        for directory in ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] where access(directory + "/" + name, X_OK) == 0 {
            return directory + "/" + name
        }
        throw ToolRunnerError(description: "'\(name)' is not installed: run scripts/install-dependencies")
    }

    /// A root with an empty dpkg database and an /etc holding only root's account, for
    /// postinst's useradd --prefix.
    static func makeEmptyRoot(_ root: String) throws {
        let manager = FileManager.default
        for directory in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "var/log", "etc"] {
            try manager.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        let files = [
            "var/lib/dpkg/status": "", "var/lib/dpkg/available": "",
            "etc/passwd": "root:x:0:0:root:/root:/bin/bash\n", "etc/group": "root:x:0:\ndialout:x:20:\n",
            "etc/shadow": "root:*:19000:0:99999:7:::\n", "etc/gshadow": "root:*::\ndialout:*::\n",
        ]
        for (path, contents) in files {
            try Data(contents.utf8).write(to: URL(fileURLWithPath: root + "/" + path))
        }
        chmod(root + "/etc/shadow", 0o640)
        chmod(root + "/etc/gshadow", 0o640)
    }

    static func stat(_ path: String) -> Glibc.stat? {
        var info = Glibc.stat()
        return lstat(path, &info) == 0 ? info : nil
    }
}
