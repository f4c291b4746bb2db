#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJournal

/// The few file operations the journal registry needs (it lives outside any journal):
/// private files (0600, directories 0700), never followed through a symlink, replaced whole
/// and durably, one writer at a time.
enum RegistryFile {
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

    static func error(_ operation: String, _ path: String, _ code: Int32 = errno) -> JournalError {
        .io(operation: operation, path: path, reason: String(cString: strerror(code)), code: code)
    }

    /// The canonical absolute path (symlinks resolved), or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates every missing directory of `path`, each private.
    static func makeDirectories(_ path: String) throws(JournalError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if kind(prefix) == .missing, mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw error("cannot create directory", prefix)
            }
            prefix += "/"
        }
    }

    /// A regular file's bytes (not through a symlink), refused past `limit`.
    static func read(_ path: String, limit: Int) throws(JournalError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if fd < 0 && errno == ELOOP { throw .untrusted(path: path, reason: "is a symbolic link") }
        if fd < 0 { throw error("cannot open", path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw .untrusted(path: path, reason: "not a regular file") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw error("cannot read", path)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw .untrusted(path: path, reason: "larger than \(limit) bytes") }
        }
    }

    /// Writes a file whole: temporary file, fsync, rename, directory fsync. After a crash
    /// it holds the old content or the new.
    static func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(JournalError) {
        let directory = parentDirectory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let temporary = directory + "/.tmp-" + name
        _ = unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 { throw error("cannot create", temporary) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 {
                let failure = error("cannot write", temporary, written < 0 ? errno : EIO)
                close(fd)
                _ = unlink(temporary)
                throw failure
            }
            offset += written
        }
        if fsync(fd) != 0 {
            let failure = error("cannot sync", temporary)
            close(fd)
            _ = unlink(temporary)
            throw failure
        }
        close(fd)
        if rename(temporary, path) != 0 { throw error("cannot rename to '\(path)'", temporary) }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            defer { close(directoryFD) }
            if fsync(directoryFD) != 0 && errno != EINVAL && errno != EROFS { throw error("cannot sync directory", directory) }
        }
    }

    /// An exclusive flock on a private lock file, waited for, held while the value lives.
    final class Lock {
        private let fd: Int32

        init(path: String) throws(JournalError) {
            fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd < 0 { throw RegistryFile.error("cannot open lock", path) }
            while flock(fd, LOCK_EX) != 0 {
                if errno == EINTR { continue }
                let failure = RegistryFile.error("cannot lock", path)
                close(fd)
                throw failure
            }
        }

        deinit { close(fd) }
    }
}
