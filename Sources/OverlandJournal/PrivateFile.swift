/// The journal's file rules for a few private files that live outside any journal (this
/// machine's registry of synced journals, in OverlandSync): files 0600 and directories 0700
/// whatever the umask, never opened through a symlink, replaced whole and durably, one
/// writer at a time. It lends other modules the journal's own file code, so that the rules
/// are written once.
public enum PrivateFile {
    /// What a path names, not following a symlink in its last component.
    public typealias Kind = FileKind

    /// What `path` names (lstat); `.missing` when it cannot be told.
    public static func kind(_ path: String, in fs: any FileSystem = POSIXFileSystem()) -> Kind {
        fs.kind(path)
    }

    /// The canonical absolute path (symlinks resolved), or nil when it does not exist.
    public static func realPath(_ path: String, in fs: any FileSystem = POSIXFileSystem()) -> String? {
        fs.realPath(path)
    }

    /// The directory part of `path`: "." when it has none, "/" for a file at the root.
    public static func parentDirectory(of path: String) -> String {
        FilePath.parentDirectory(of: path)
    }

    /// Creates every missing directory of `path`, each private (0700); refuses a symlink
    /// or a file put in place of one that was missing.
    public static func makeDirectories(_ path: String, in fs: any FileSystem = POSIXFileSystem()) throws(JournalError) {
        try fs.makeDirectories(path)
    }

    /// A regular file's bytes, refused (`.untrusted`) when it is a symlink, not a regular
    /// file, or larger than `limit` bytes.
    public static func read(_ path: String, limit: Int, in fs: any FileSystem = POSIXFileSystem()) throws(JournalError) -> [UInt8] {
        try fs.readFile(path, limit: limit)
    }

    /// Writes a file whole and private (0600): a temporary file beside it, fsync, rename,
    /// directory fsync. After a crash it holds the old content or the new, never a mix.
    public static func replaceAtomically(_ path: String, with bytes: [UInt8], in fs: any FileSystem = POSIXFileSystem()) throws(JournalError) {
        try fs.replaceAtomically(path, with: bytes)
    }

    /// Takes an exclusive lock (flock) on the lock file `path`, created private if missing,
    /// waiting for it; released when the returned value goes away. A lock file that cannot
    /// be opened for writing is an error, not a read-only lock: the lock is taken to write.
    public static func lock(_ path: String, in fs: any FileSystem = POSIXFileSystem()) throws(JournalError) -> JournalLock {
        let lock = try FileLock(path: path, create: true, readOnlyFallback: false, in: fs)
        try lock.lock(.exclusive)
        return JournalLock(lock)
    }
}
