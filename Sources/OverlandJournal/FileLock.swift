/// An advisory lock on a file (flock), released when the value is closed or the process dies.
public final class FileLock {
    private let fs: any FileSystem
    private let fd: Int32
    let path: String

    public enum Mode: Sendable { case shared, exclusive }

    /// Opens (creating it, private, when `create`) the lock file. Where it cannot be opened
    /// for writing (EROFS, EACCES), `readOnlyFallback` opens an existing one read-only, for
    /// readers on read-only media.
    init(path: String, create: Bool, readOnlyFallback: Bool = true, in fs: any FileSystem) throws(JournalError) {
        self.path = path
        self.fs = fs
        fd = try fs.openLock(path, create: create, readOnlyFallback: readOnlyFallback)
    }

    deinit { fs.close(fd) }

    func lock(_ mode: Mode) throws(JournalError) {
        _ = try fs.lock(fd, mode, wait: true, path: path)
    }

    /// Takes the lock if it is free; false when another process holds it.
    func tryLock(_ mode: Mode) throws(JournalError) -> Bool {
        try fs.lock(fd, mode, wait: false, path: path)
    }

    func unlock() { fs.unlock(fd) }

    func withLock<T>(_ mode: Mode, _ body: () throws(JournalError) -> T) throws(JournalError) -> T {
        try lock(mode)
        defer { unlock() }
        return try body()
    }
}
