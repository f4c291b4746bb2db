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
    /// `PREFIX.after-rename`). With `durably: false` the directory fsync is left out: a power
    /// cut may undo the rename (the old file back), never leave the new name on bytes that
    /// did not reach the disk, which is why the file's own fsync always comes first
    /// (without it journal-sim seed 1096 found an empty cursor after a cut, refused).
    func commit(faultPrefix: String? = nil, durably: Bool = true) throws(JournalError) {
        do {
            try fs.sync(fd, path: temporary)
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
