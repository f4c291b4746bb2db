#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin POSIX wrappers: every file the journal creates is private (0600, directories 0700),
/// no path is followed through a symlink, and durability is explicit (fsync, directory fsync).
enum FileSystem {
    static let fileMode: mode_t = 0o600
    static let directoryMode: mode_t = 0o700

    static func errnoError(_ operation: String, _ path: String, _ code: Int32 = errno) -> JournalError {
        .io(operation: operation, path: path, reason: String(cString: strerror(code)), code: code)
    }

    /// Opens an existing regular file for reading, refusing symlinks and anything that is not
    /// a regular file.
    static func openForReading(_ path: String) throws(JournalError) -> Int32 {
        // O_NONBLOCK guards against a FIFO planted under a segment name: opening one would wait.
        let fd = try openRegularFile(path, O_RDONLY | O_NONBLOCK)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Creates a new private file; fails if the name exists.
    static func createExclusive(_ path: String) throws(JournalError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode)
        if fd < 0 { throw errnoError("cannot create", path) }
        _ = fchmod(fd, fileMode)
        return fd
    }

    /// Opens an existing regular file for appending, refusing symlinks.
    static func openForAppending(_ path: String) throws(JournalError) -> Int32 {
        try openRegularFile(path, O_WRONLY | O_APPEND)
    }

    /// Opens an existing file with `flags`, never through a symlink, and only if it is a
    /// regular file.
    private static func openRegularFile(_ path: String, _ flags: Int32) throws(JournalError) -> Int32 {
        let fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 && errno == ELOOP { throw .untrusted(path: path, reason: "is a symbolic link") }
        if fd < 0 { throw errnoError("cannot open", path) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .untrusted(path: path, reason: "not a regular file")
        }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(JournalError) {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw errnoError("cannot write", path)
            }
            if written == 0 { throw errnoError("cannot write", path, EIO) }
            offset += written
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(JournalError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JournalError) in try writeAll(fd, buffer, path: path) }
        }
        try result.get()
    }

    /// fsync; an error here is final for that file: the kernel may have dropped the dirty
    /// pages, so the caller must never retry and trust it.
    static func sync(_ fd: Int32, path: String) throws(JournalError) {
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw errnoError("cannot sync", path)
        }
    }

    /// Makes a directory entry (a create, rename or unlink inside it) durable.
    static func syncDirectory(_ path: String) throws(JournalError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw errnoError("cannot open directory", path) }
        defer { close(fd) }
        if fsync(fd) != 0 {
            // Some file systems (vfat through some drivers) refuse fsync on a directory;
            // EINVAL there means "nothing to do", not a lost write.
            if errno == EINVAL || errno == EROFS { return }
            throw errnoError("cannot sync directory", path)
        }
    }

    /// File systems that hold no Unix owner or mode of their own (every file shows the
    /// mount's): what USB sticks are formatted with.
    static let typesWithoutPermissions: Set<String> = ["vfat", "msdos", "exfat", "ntfs", "ntfs3", "fuseblk", "fuse", "fuse.fusefat"]

    /// The type of the file system holding `path` (symlinks resolved), from the longest
    /// mount point in /proc/self/mounts that contains it; nil when it cannot be told.
    static func mountType(of path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        let target = String(cString: resolved)
        free(resolved)
        guard let table = try? readFile("/proc/self/mounts", limit: 4 << 20) else { return nil }
        var best: (length: Int, type: String)?
        for line in table.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count >= 3 else { continue }
            let point = unescapeMountField(fields[1])
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

    static func readAll(_ fd: Int32, path: String, limit: Int) throws(JournalError) -> [UInt8] {
        var result: [UInt8] = []
        try readAll(fd, path: path, limit: limit, into: &result)
        return result
    }

    /// `readAll(_:path:limit:)` into `result`, replacing its contents and reusing its storage
    /// when nothing else holds it.
    static func readAll(_ fd: Int32, path: String, limit: Int, into result: inout [UInt8]) throws(JournalError) {
        result.removeAll(keepingCapacity: true)
        // Refused by its size before any of it is read (it may still grow while read: the
        // check below stays).
        if try size(fd, path: path) > limit { throw .untrusted(path: path, reason: "larger than \(limit) bytes") }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw errnoError("cannot read", path)
            }
            if count == 0 { return }
            result.append(contentsOf: chunk[0..<count])
            if result.count > limit { throw .untrusted(path: path, reason: "larger than \(limit) bytes") }
        }
    }

    /// Reads exactly `count` bytes at `offset`, or fewer at end of file.
    static func read(_ fd: Int32, at offset: Int, count: Int, path: String) throws(JournalError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if got < 0 {
                if errno == EINTR { continue }
                throw errnoError("cannot read", path)
            }
            if got == 0 { break }
            done += got
        }
        if done < count { buffer.removeSubrange(done...) }
        return buffer
    }

    static func readFile(_ path: String, limit: Int) throws(JournalError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        return try readAll(fd, path: path, limit: limit)
    }

    /// `readFile(_:limit:)` into `result`, reusing its storage when nothing else holds it.
    static func readFile(_ path: String, limit: Int, into result: inout [UInt8]) throws(JournalError) {
        let fd = try openForReading(path)
        defer { close(fd) }
        try readAll(fd, path: path, limit: limit, into: &result)
    }

    static func size(_ fd: Int32, path: String) throws(JournalError) -> Int {
        var info = stat()
        if fstat(fd, &info) != 0 { throw errnoError("cannot stat", path) }
        return Int(info.st_size)
    }

    enum Kind { case missing, file, directory, symlink, other }

    static func kind(_ path: String) -> Kind {
        var info = stat()
        if lstat(path, &info) != 0 { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    static func fileSize(_ path: String) -> Int? {
        var info = stat()
        if lstat(path, &info) != 0 { return nil }
        return Int(info.st_size)
    }

    static func modificationTime(_ path: String) -> Int64? {
        var info = stat()
        if lstat(path, &info) != 0 { return nil }
        return Int64(info.st_mtim.tv_sec)
    }

    /// Creates a private directory if missing; refuses a symlink in its place.
    static func makeDirectory(_ path: String) throws(JournalError) {
        if mkdir(path, directoryMode) != 0 {
            guard errno == EEXIST else { throw errnoError("cannot create directory", path) }
            switch kind(path) {
            case .directory: return
            case .symlink: throw .untrusted(path: path, reason: "is a symbolic link")
            default: throw .untrusted(path: path, reason: "exists and is not a directory")
            }
        }
        _ = chmod(path, directoryMode)
    }

    /// Creates every missing directory of `path`, each private.
    static func makeDirectories(_ path: String) throws(JournalError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if kind(prefix) == .missing { try makeDirectory(prefix) }
            prefix += "/"
        }
    }

    static func listDirectory(_ path: String) throws(JournalError) -> [String] {
        guard let dir = opendir(path) else { throw errnoError("cannot list", path) }
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

    static func rename(_ from: String, _ to: String) throws(JournalError) {
        if Glibc.rename(from, to) != 0 { throw errnoError("cannot rename to '\(to)'", from) }
    }

    /// Whether `path` is a file the journal may read, replace or remove: true for a regular
    /// file, false when missing; a symlink (never followed, never silently replaced) or
    /// anything else is refused.
    @discardableResult
    static func checkRegularFile(_ path: String) throws(JournalError) -> Bool {
        switch kind(path) {
        case .missing: return false
        case .file: return true
        case .symlink: throw .untrusted(path: path, reason: "is a symbolic link")
        case .directory: throw .untrusted(path: path, reason: "is a directory")
        case .other: throw .untrusted(path: path, reason: "not a regular file")
        }
    }

    static func remove(_ path: String) throws(JournalError) {
        if unlink(path) != 0 && errno != ENOENT { throw errnoError("cannot remove", path) }
    }

    /// Writes a small file whole and durably: temporary file, fsync, rename, directory fsync.
    /// After a crash the target holds the old content or the new, never a mix.
    /// `durably: false` leaves out both fsyncs: the replacement is atomic (a killed process
    /// leaves the old or the new file) but a power cut may undo it until `syncFile` and
    /// `syncDirectory` (the durability pacing of cursors, journal-format.md section 9).
    static func replaceAtomically(_ path: String, with bytes: [UInt8], faultPrefix: String? = nil,
                                  durably: Bool = true) throws(JournalError) {
        try checkRegularFile(path)
        let directory = parentDirectory(of: path)
        let temporary = directory + "/.tmp-" + baseName(of: path)
        try remove(temporary)
        let fd = try createExclusive(temporary)
        do {
            try writeAll(fd, bytes, path: temporary)
            if durably { try sync(fd, path: temporary) }
        } catch {
            close(fd)
            try? remove(temporary)
            throw error
        }
        close(fd)
        if let faultPrefix { FaultPoint.reach(faultPrefix + ".after-write") }
        try rename(temporary, path)
        if let faultPrefix { FaultPoint.reach(faultPrefix + ".after-rename") }
        if durably { try syncDirectory(directory) }
    }

    /// Makes an existing regular file's content durable (fsync); a missing file is fine.
    static func syncFile(_ path: String) throws(JournalError) {
        guard try checkRegularFile(path) else { return }
        let fd = try openForReading(path)
        defer { close(fd) }
        try sync(fd, path: path)
    }

    /// `replaceAtomically` for a file too large to hold in memory: written a piece at a
    /// time beside `path`, then fsynced and renamed over it by `commit`.
    final class Replacement {
        let path: String
        let temporary: String
        private var fd: Int32

        init(_ path: String) throws(JournalError) {
            self.path = path
            temporary = parentDirectory(of: path) + "/.tmp-" + baseName(of: path)
            try remove(temporary)
            fd = try createExclusive(temporary)
        }

        /// A replacement neither committed nor discarded leaves nothing behind.
        deinit { discard() }

        func write(_ bytes: [UInt8]) throws(JournalError) {
            try writeAll(fd, bytes, path: temporary)
        }

        /// The open temporary file, for a copy straight into it.
        var descriptor: Int32 { fd }

        /// Removes the temporary file; the target stays as it was.
        func discard() {
            guard fd >= 0 else { return }
            close(fd)
            fd = -1
            try? remove(temporary)
        }

        /// fsync, rename over the target, directory fsync (fault points as `replaceAtomically`).
        func commit(faultPrefix: String? = nil) throws(JournalError) {
            do {
                try sync(fd, path: temporary)
            } catch {
                discard()
                throw error
            }
            close(fd)
            fd = -1
            if let faultPrefix { FaultPoint.reach(faultPrefix + ".after-write") }
            try rename(temporary, path)
            if let faultPrefix { FaultPoint.reach(faultPrefix + ".after-rename") }
            try syncDirectory(parentDirectory(of: path))
        }
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

/// An advisory lock on a file (flock), released when the value is closed or the process dies.
final class FileLock {
    private let fd: Int32
    let path: String

    enum Mode { case shared, exclusive }

    /// Opens (creating it, private, when `create`) the lock file. Where it cannot be opened
    /// for writing (EROFS, EACCES), `readOnlyFallback` opens an existing one read-only, for
    /// readers on read-only media.
    init(path: String, create: Bool, readOnlyFallback: Bool = true) throws(JournalError) {
        self.path = path
        var fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), FileSystem.fileMode)
        if fd < 0 && readOnlyFallback && (errno == EROFS || errno == EACCES) {
            fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        }
        if fd < 0 { throw FileSystem.errnoError("cannot open lock", path) }
        self.fd = fd
    }

    deinit { close(fd) }

    func lock(_ mode: Mode) throws(JournalError) {
        while flock(fd, mode == .shared ? LOCK_SH : LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw FileSystem.errnoError("cannot lock", path)
        }
    }

    /// Takes the lock if it is free; false when another process holds it.
    func tryLock(_ mode: Mode) throws(JournalError) -> Bool {
        while flock(fd, (mode == .shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw FileSystem.errnoError("cannot lock", path)
        }
        return true
    }

    func unlock() { _ = flock(fd, LOCK_UN) }

    func withLock<T>(_ mode: Mode, _ body: () throws(JournalError) -> T) throws(JournalError) -> T {
        try lock(mode)
        defer { unlock() }
        return try body()
    }
}
