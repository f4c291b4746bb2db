#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few file operations the sync's state needs: private directories (0700), small files
/// read with a size cap, and whole-file replacement that survives a crash (temporary file,
/// fsync, rename, directory fsync; mode 0600). Nothing follows a symbolic link.
enum PrivateFile {
    /// A failed system call, as a lower-case phrase naming the path.
    struct Failure: Error, Sendable, CustomStringConvertible {
        let description: String

        init(_ operation: String, _ path: String, code: Int32 = errno) {
            description = "\(operation) '\(path)': \(String(cString: strerror(code)).lowercased())"
        }

        init(message: String) {
            description = message
        }
    }

    /// Creates `path` as a private directory if it is missing; refuses a symlink or a file.
    static func makeDirectory(_ path: String) throws(Failure) {
        if mkdir(path, 0o700) == 0 { return }
        guard errno == EEXIST else { throw Failure("cannot create directory", path) }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw Failure("cannot inspect", path) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Failure(message: "refusing '\(path)': not a directory")
        }
    }

    /// The file's bytes, or nil when it does not exist. Refuses a file over `limit` bytes.
    static func contents(of path: String, limit: Int) throws(Failure) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Failure("cannot open", path)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure("cannot read", path)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > limit { throw Failure(message: "refusing '\(path)': larger than \(limit) bytes") }
        }
    }

    /// Replaces `path` whole and durably: after a crash it holds the old bytes or the new.
    static func replace(_ path: String, with bytes: [UInt8]) throws(Failure) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = directory + "/.tmp-" + name
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 { throw Failure("cannot create", temporary) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                let failure = Failure("cannot write", temporary)
                close(fd)
                unlink(temporary)
                throw failure
            }
            written += count
        }
        if fsync(fd) != 0 {
            let failure = Failure("cannot sync", temporary)
            close(fd)
            unlink(temporary)
            throw failure
        }
        close(fd)
        if rename(temporary, path) != 0 {
            let failure = Failure("cannot rename to '\(path)'", temporary)
            unlink(temporary)
            throw failure
        }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD < 0 { throw Failure("cannot open directory", directory) }
        defer { close(directoryFD) }
        if fsync(directoryFD) != 0 && errno != EINVAL { throw Failure("cannot sync directory", directory) }
    }
}
