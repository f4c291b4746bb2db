/// Where the journal, its cursors and its state files do their I/O: the POSIX file system
/// (`POSIXFileSystem`, the default), or a simulated disk standing in for it (journal-sim).
/// The primitives are the system calls the journal needs; the rules built on them
/// (`replaceAtomically`, `makeDirectories`, ...) are written once, in `FileSystem+Rules`,
/// so that a simulated disk runs the same sequence of writes, fsyncs and renames as a real
/// one. Descriptors are the implementation's own numbers.
public protocol FileSystem: Sendable {
    // MARK: Descriptors

    /// Opens an existing regular file for reading, refusing symlinks and anything that is
    /// not a regular file.
    func openForReading(_ path: String) throws(JournalError) -> Int32
    /// Opens an existing regular file for writing at any offset (a truncate), refusing symlinks.
    func openForWriting(_ path: String) throws(JournalError) -> Int32
    /// Opens an existing regular file for appending, refusing symlinks.
    func openForAppending(_ path: String) throws(JournalError) -> Int32
    /// Creates a new private file (0600); fails if the name exists.
    func createExclusive(_ path: String) throws(JournalError) -> Int32
    func close(_ fd: Int32)
    /// Writes all of `bytes` at the file's offset (its end for an append).
    func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(JournalError)
    /// Reads up to `buffer.count` bytes at `offset`; 0 at end of file.
    func read(_ fd: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(JournalError) -> Int
    /// fsync; an error here is final for that file: the kernel may have dropped the dirty
    /// pages, so the caller must never retry and trust it.
    func sync(_ fd: Int32, path: String) throws(JournalError)
    func truncate(_ fd: Int32, to size: Int, path: String) throws(JournalError)
    func size(_ fd: Int32, path: String) throws(JournalError) -> Int
    /// What tells one file from another at the same name (device and inode).
    func identity(_ fd: Int32, path: String) throws(JournalError) -> FileIdentity
    /// A hint that the file's cached pages will not be read again (a move's copy).
    func dropCache(_ fd: Int32)

    // MARK: Names

    /// What `path` names, not following a symlink in its last component; `.missing` when
    /// it cannot be told.
    func kind(_ path: String) -> FileKind
    /// What `path` names; throws when it cannot be told for another reason than its absence
    /// (a directory that may not be searched).
    func lookUp(_ path: String) throws(JournalError) -> FileKind
    /// Size, modification time and identity of `path` (not following a last symlink).
    func status(_ path: String) -> FileStatus?
    /// Who may write to the directory `path` (following symlinks): nil when it cannot be told.
    func writers(of path: String) -> FileWriters?
    /// Whether `path` lies on a read-only file system.
    func isReadOnly(_ path: String) -> Bool
    /// Creates a private directory (0700) if missing (true when it did); refuses a symlink
    /// or a file in its place. Its name is not durable yet: see `makeDirectory`.
    func createDirectory(_ path: String) throws(JournalError) -> Bool
    func listDirectory(_ path: String) throws(JournalError) -> [String]
    func rename(_ from: String, _ to: String) throws(JournalError)
    /// Removes a file; a missing one is fine.
    func remove(_ path: String) throws(JournalError)
    /// Makes a directory entry (a create, rename or unlink inside it) durable.
    func syncDirectory(_ path: String) throws(JournalError)
    /// The canonical absolute path (symlinks resolved), or nil when it does not exist.
    func realPath(_ path: String) -> String?
    /// The type of the file system holding `path` ("ext4", "vfat"), nil when it cannot be told.
    func mountType(of path: String) -> String?

    // MARK: Locks

    /// Opens (creating it, private, when `create`) a lock file. Where it cannot be opened
    /// for writing (EROFS, EACCES), `readOnlyFallback` opens an existing one read-only.
    func openLock(_ path: String, create: Bool, readOnlyFallback: Bool) throws(JournalError) -> Int32
    /// Takes the lock (flock); with `wait` false, false when another process holds it.
    func lock(_ fd: Int32, _ mode: FileLock.Mode, wait: Bool, path: String) throws(JournalError) -> Bool
    func unlock(_ fd: Int32)
}

/// What a path names.
public enum FileKind: Sendable, Equatable { case missing, file, directory, symlink, other }

/// A file's device and inode: the same file whatever its name.
public struct FileIdentity: Sendable, Equatable {
    public let device: UInt64
    public let inode: UInt64
    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}

/// What `FileSystem.status` tells of a path.
public struct FileStatus: Sendable, Equatable {
    public let size: Int
    /// Unix seconds.
    public let modified: Int64
    public let identity: FileIdentity
    public init(size: Int, modified: Int64, identity: FileIdentity) {
        self.size = size
        self.modified = modified
        self.identity = identity
    }
}

/// Who may write to a directory: its owner and whether every user may.
public struct FileWriters: Sendable, Equatable {
    public let owner: UInt32
    /// The permission bits (`st_mode & 0o7777`).
    public let mode: UInt32
    /// The calling user.
    public let me: UInt32
    public init(owner: UInt32, mode: UInt32, me: UInt32) {
        self.owner = owner
        self.mode = mode
        self.me = me
    }
}
