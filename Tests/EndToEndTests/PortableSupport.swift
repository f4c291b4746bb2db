import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// System tools the tests drive. scripts/install-dependencies installs every one of them; a
/// test that needs one fails, naming it, where it is missing (it never passes by skipping).
enum SystemTool {
    /// The Debian package that installs each tool the tests look up by name.
    static let packages = [
        "gzip": "gzip", "zcat": "gzip", "jq": "jq", "gpsbabel": "gpsbabel", "xmllint": "libxml2-utils",
        "strace": "strace", "openssl": "openssl", "mkfs.vfat": "dosfstools", "fusefat": "fusefat", "mcopy": "mtools",
        "fusermount": "fuse", "socat": "socat", "chattr": "e2fsprogs", "setpriv": "util-linux", "python3": "python3", "time": "time",
        "chromium": "chromium", "gpsfake": "gpsd-clients", "gpspipe": "gpsd-clients", "gpsd": "gpsd", "systemd-analyze": "systemd",
    ]

    /// What to say when `name` is missing.
    static func missing(_ name: String) -> String {
        "\(name) is not installed (Debian package \(packages[name] ?? name)): run `bash scripts/install-dependencies`"
    }

    /// The absolute path of `name`, or a failed test (and a thrown error) naming it.
    static func require(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(find(name), Comment(rawValue: missing(name)), sourceLocation: sourceLocation)
    }

    /// The absolute path of `name` on PATH (or in the sbin directories), or nil.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"] {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs a tool by name; a failed test naming it when it is not installed.
    static func run(_ name: String, _ arguments: [String], timeout: Duration = .seconds(60),
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolResult {
        try ToolRunner(executable: require(name, sourceLocation: sourceLocation)).run(arguments, timeout: timeout)
    }
}

/// A small file system mounted for one test (a tmpfs of a given size, or a FAT image
/// through the fusefat driver), unmounted when the value goes away. A missing tool
/// (fusefat, mkfs.vfat) is a failed test; nil only where no install can help: not root
/// (mount(2) needs CAP_SYS_ADMIN) or no /dev/fuse in this container. Tests then fall back.
final class MountedFileSystem {
    enum Kind { case tmpfs, fusefat }

    let path: String
    let kind: Kind
    /// The image file behind a FAT mount.
    let image: String?

    private init(path: String, kind: Kind, image: String?) {
        self.path = path
        self.kind = kind
        self.image = image
    }

    deinit { unmount() }

    /// A tmpfs of `bytes` at `path` (created).
    static func tmpfs(at path: String, bytes: Int) -> MountedFileSystem? {
        guard getuid() == 0 else { return nil }
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard let result = try? SystemTool.run("mount", ["-t", "tmpfs", "-o", "size=\(bytes),mode=0700", "tmpfs", path]),
              result.succeeded else { return nil }
        return MountedFileSystem(path: path, kind: .tmpfs, image: nil)
    }

    /// A fresh FAT file system of `bytes` in `image`, mounted read-write at `path` through
    /// fusefat (the kernel's vfat driver is often missing in containers; fusefat needs
    /// /dev/fuse and the fusefat and dosfstools packages).
    static func fat(image: String, at path: String, bytes: Int, format: Bool = true,
                    sourceLocation: SourceLocation = #_sourceLocation) -> MountedFileSystem? {
        guard access("/dev/fuse", R_OK | W_OK) == 0 else { return nil }
        guard let fusefat = try? SystemTool.require("fusefat", sourceLocation: sourceLocation) else { return nil }
        if format {
            guard truncate(image, bytes: bytes),
                  let made = try? SystemTool.run("mkfs.vfat", [image], sourceLocation: sourceLocation), made.succeeded else { return nil }
        }
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard let result = try? ToolRunner(executable: fusefat).run(["-o", "rw+", image, path]), result.succeeded else { return nil }
        // fusefat answers from its own process: wait until the mount is there.
        guard waitUntil({ isMountPoint(path) }) else { return nil }
        return MountedFileSystem(path: path, kind: .fusefat, image: image)
    }

    /// Unmounts and mounts the same image again (data must have reached the image).
    func remount() -> MountedFileSystem? {
        guard kind == .fusefat, let image else { return nil }
        unmount()
        return Self.fat(image: image, at: path, bytes: 0, format: false)
    }

    /// Grows a tmpfs.
    func resize(bytes: Int) -> Bool {
        guard kind == .tmpfs else { return false }
        return (try? SystemTool.run("mount", ["-o", "remount,size=\(bytes)", path]))?.succeeded ?? false
    }

    private var mounted = true

    func unmount() {
        guard mounted else { return }
        mounted = false
        switch kind {
        case .tmpfs: _ = try? SystemTool.run("umount", [path])
        case .fusefat:
            if (try? ToolRunner(executable: SystemTool.find("fusermount") ?? "/bin/fusermount").run(["-u", path]))?.succeeded != true {
                _ = try? SystemTool.run("umount", ["-l", path])
            }
            waitUntil { !Self.isMountPoint(path) }
        }
    }

    static func isMountPoint(_ path: String) -> Bool {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return false }
        let resolved = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? path
        return mounts.split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first.map(String.init) == resolved }
    }

    private static func truncate(_ path: String, bytes: Int) -> Bool {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return Glibc.truncate(path, off_t(bytes)) == 0
    }
}

/// What FAT accepts, checked on every path under a journal: names of `0-9 a-z . - _`
/// under 64 characters, no two names that differ only in case, regular files and
/// directories only, no file of 4 GiB or more.
func checkFATCompatible(_ root: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyz.-_".utf8)
    func visit(_ path: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        #expect(Set(names.map { $0.lowercased() }).count == names.count, "\(path): names that differ only in case",
                sourceLocation: sourceLocation)
        for name in names {
            let child = path + "/" + name
            #expect(name.utf8.allSatisfy(allowed.contains) && name.utf8.count < 64 && !name.hasSuffix("."),
                    "\(child): a name FAT may refuse or change", sourceLocation: sourceLocation)
            var info = stat()
            guard lstat(child, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: visit(child)
            case S_IFREG:
                #expect(info.st_size < 1 << 32, "\(child): too large for FAT", sourceLocation: sourceLocation)
            default:
                Issue.record("\(child): neither a file nor a directory (FAT holds no links)", sourceLocation: sourceLocation)
            }
        }
    }
    visit(root)
}
