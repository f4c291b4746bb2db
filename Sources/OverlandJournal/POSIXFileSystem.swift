#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OverlandJSON

/// The file system through POSIX calls: every file the journal creates is private (0600,
/// directories 0700), no path is followed through a symlink, and durability is explicit
/// (fsync, directory fsync).
public struct POSIXFileSystem: FileSystem {
    static let fileMode: mode_t = 0o600
    static let directoryMode: mode_t = 0o700

    public init() {}

    static func errnoError(_ operation: String, _ path: String, _ code: Int32 = errno) -> JournalError {
        .io(operation: operation, path: path, reason: SystemErrorText.of(code), code: code)
    }

    public func openForReading(_ path: String) throws(JournalError) -> Int32 {
        // O_NONBLOCK guards against a FIFO planted under a segment name: opening one would wait.
        let fd = try openRegularFile(path, O_RDONLY | O_NONBLOCK)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    public func openForWriting(_ path: String) throws(JournalError) -> Int32 {
        try openRegularFile(path, O_WRONLY)
    }

    public func openForAppending(_ path: String) throws(JournalError) -> Int32 {
        try openRegularFile(path, O_WRONLY | O_APPEND)
    }

    public func createExclusive(_ path: String) throws(JournalError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, Self.fileMode)
        if fd < 0 { throw Self.errnoError("cannot create", path) }
        _ = fchmod(fd, Self.fileMode)
        return fd
    }

    /// Opens an existing file with `flags`, never through a symlink, and only if it is a
    /// regular file.
    private func openRegularFile(_ path: String, _ flags: Int32) throws(JournalError) -> Int32 {
        let fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 && errno == ELOOP { throw .untrusted(path: path, reason: "is a symbolic link") }
        if fd < 0 { throw Self.errnoError("cannot open", path) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw .untrusted(path: path, reason: "not a regular file")
        }
        return fd
    }

    public func close(_ fd: Int32) { _ = Glibc.close(fd) }

    public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(JournalError) {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw Self.errnoError("cannot write", path)
            }
            if written == 0 { throw Self.errnoError("cannot write", path, EIO) }
            offset += written
        }
    }

    public func read(_ fd: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(JournalError) -> Int {
        guard buffer.count > 0 else { return 0 }
        while true {
            let got = pread(fd, buffer.baseAddress!, buffer.count, off_t(offset))
            if got >= 0 { return got }
            if errno != EINTR { throw Self.errnoError("cannot read", path) }
        }
    }

    public func sync(_ fd: Int32, path: String) throws(JournalError) {
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw Self.errnoError("cannot sync", path)
        }
    }

    public func truncate(_ fd: Int32, to size: Int, path: String) throws(JournalError) {
        if ftruncate(fd, off_t(size)) != 0 { throw Self.errnoError("cannot truncate", path) }
    }

    public func size(_ fd: Int32, path: String) throws(JournalError) -> Int {
        var info = stat()
        if fstat(fd, &info) != 0 { throw Self.errnoError("cannot stat", path) }
        return Int(info.st_size)
    }

    public func identity(_ fd: Int32, path: String) throws(JournalError) -> FileIdentity {
        var info = stat()
        if fstat(fd, &info) != 0 { throw Self.errnoError("cannot stat", path) }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    public func dropCache(_ fd: Int32) { _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) }

    public func kind(_ path: String) -> FileKind {
        (try? lookUp(path)) ?? .missing
    }

    public func lookUp(_ path: String) throws(JournalError) -> FileKind {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return .missing }
            throw Self.errnoError("cannot open", path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    public func status(_ path: String) -> FileStatus? {
        var info = stat()
        if lstat(path, &info) != 0 { return nil }
        return FileStatus(size: Int(info.st_size), modified: Int64(info.st_mtim.tv_sec),
                          identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
    }

    public func writers(of path: String) -> FileWriters? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileWriters(owner: info.st_uid, mode: UInt32(info.st_mode & 0o7777), me: getuid())
    }

    public func isReadOnly(_ path: String) -> Bool {
        access(path, W_OK) != 0 && errno == EROFS
    }

    public func createDirectory(_ path: String) throws(JournalError) -> Bool {
        if mkdir(path, Self.directoryMode) != 0 {
            guard errno == EEXIST else { throw Self.errnoError("cannot create directory", path) }
            switch kind(path) {
            case .directory: return false
            case .symlink: throw .untrusted(path: path, reason: "is a symbolic link")
            default: throw .untrusted(path: path, reason: "exists and is not a directory")
            }
        }
        _ = chmod(path, Self.directoryMode)
        return true
    }

    public func listDirectory(_ path: String) throws(JournalError) -> [String] {
        guard let dir = opendir(path) else { throw Self.errnoError("cannot list", path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func rename(_ from: String, _ to: String) throws(JournalError) {
        if Glibc.rename(from, to) != 0 { throw Self.errnoError("cannot rename to '\(to)'", from) }
    }

    public func remove(_ path: String) throws(JournalError) {
        if unlink(path) != 0 && errno != ENOENT { throw Self.errnoError("cannot remove", path) }
    }

    public func syncDirectory(_ path: String) throws(JournalError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw Self.errnoError("cannot open directory", path) }
        defer { Glibc.close(fd) }
        if fsync(fd) != 0 {
            // Some file systems (vfat through some drivers) refuse fsync on a directory;
            // EINVAL there means "nothing to do", not a lost write.
            if errno == EINVAL || errno == EROFS { return }
            throw Self.errnoError("cannot sync directory", path)
        }
    }

    public func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(decoding: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)), as: UTF8.self)
    }

    /// From the longest mount point in /proc/self/mounts that contains `path` (resolved).
    public func mountType(of path: String) -> String? {
        guard let target = realPath(path), let table = try? readFile("/proc/self/mounts", limit: 4 << 20) else { return nil }
        var best: (length: Int, type: String)?
        for line in table.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count >= 3 else { continue }
            let point = Self.unescapeMountField(fields[1])
            let inside = point == "/" || target == point || target.hasPrefix(point + "/")
            if inside, point.utf8.count >= (best?.length ?? -1) {
                best = (point.utf8.count, String(decoding: fields[2], as: UTF8.self))
            }
        }
        return best?.type
    }

    /// A mount table field with its octal escapes (`\040` for a space) decoded.
    private static func unescapeMountField(_ field: ArraySlice<UInt8>) -> String {
        var bytes: [UInt8] = []
        var index = field.startIndex
        while index < field.endIndex {
            if field[index] == UInt8(ascii: "\\"), index + 3 < field.endIndex,
               let value = UInt8(String(decoding: field[(index + 1)...(index + 3)], as: UTF8.self), radix: 8) {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(field[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public func openLock(_ path: String, create: Bool, readOnlyFallback: Bool) throws(JournalError) -> Int32 {
        var fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), Self.fileMode)
        if fd < 0 && readOnlyFallback && (errno == EROFS || errno == EACCES) {
            fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        }
        if fd < 0 { throw Self.errnoError("cannot open lock", path) }
        return fd
    }

    public func lock(_ fd: Int32, _ mode: FileLock.Mode, wait: Bool, path: String) throws(JournalError) -> Bool {
        let operation = (mode == .shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)
        while flock(fd, operation) != 0 {
            if errno == EINTR { continue }
            if !wait && errno == EWOULDBLOCK { return false }
            throw Self.errnoError("cannot lock", path)
        }
        return true
    }

    public func unlock(_ fd: Int32) { _ = flock(fd, LOCK_UN) }
}

/// File systems that hold no Unix owner or mode of their own (every file shows the
/// mount's): what USB sticks are formatted with.
let typesWithoutPermissions: Set<String> = ["vfat", "msdos", "exfat", "ntfs", "ntfs3", "fuseblk", "fuse", "fuse.fusefat"]
