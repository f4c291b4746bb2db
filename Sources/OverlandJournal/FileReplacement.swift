/// A file written whole and durably: a piece at a time into a temporary file beside
/// `path`, then fsynced, renamed over it and its directory fsynced by `commit`. After a
/// crash the target holds the old content or the new, never a mix.
final class FileReplacement {
    let path: String
    let temporary: String
    private let fs: any FileSystem
    private var fd: Int32

    init(_ path: String, in fs: any FileSystem) throws(JournalError) {
        self.path = path
        self.fs = fs
        temporary = FilePath.parentDirectory(of: path) + "/.tmp-" + FilePath.baseName(of: path)
        try fs.remove(temporary)
        fd = try fs.createExclusive(temporary)
    }

    /// A replacement neither committed nor discarded leaves nothing behind.
    deinit { discard() }

    func write(_ bytes: [UInt8]) throws(JournalError) {
        do {
            try fs.writeAll(fd, bytes, path: temporary)
        } catch {
            discard()
            throw error
        }
    }

    /// The open temporary file, for a copy straight into it.
    var descriptor: Int32 { fd }

    /// Removes the temporary file; the target stays as it was.
    func discard() {
        guard fd >= 0 else { return }
        fs.close(fd)
        fd = -1
        try? fs.remove(temporary)
    }

    /// fsync, rename over the target, directory fsync (fault points `PREFIX.after-write`,
    /// `PREFIX.after-rename`); with `durably: false`, the rename alone (atomic, not durable).
    func commit(faultPrefix: String? = nil, durably: Bool = true) throws(JournalError) {
        do {
            if durably { try fs.sync(fd, path: temporary) }
        } catch {
            discard()
            throw error
        }
        fs.close(fd)
        fd = -1
        if let faultPrefix { FaultPoint.reach(faultPrefix + ".after-write") }
        try fs.rename(temporary, path)
        if let faultPrefix { FaultPoint.reach(faultPrefix + ".after-rename") }
        if durably { try fs.syncDirectory(FilePath.parentDirectory(of: path)) }
    }
}
