/// The journal's file rules, built on a `FileSystem`'s primitives: written once, so that
/// the POSIX file system and a simulated disk run the same writes, fsyncs and renames.
extension FileSystem {
    public func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(JournalError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JournalError) in try writeAll(fd, buffer, path: path) }
        }
        try result.get()
    }

    /// Reads exactly `count` bytes at `offset`, or fewer at end of file.
    public func read(_ fd: Int32, at offset: Int, count: Int, path: String) throws(JournalError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let done = try read(fd, at: offset, into: &buffer, count: count, path: path)
        if done < count { buffer.removeSubrange(done...) }
        return buffer
    }

    /// Fills the first `count` bytes of `buffer` from `offset` on; returns how many were
    /// read (fewer only at end of file).
    func read(_ fd: Int32, at offset: Int, into buffer: inout [UInt8], count: Int, path: String) throws(JournalError) -> Int {
        var done = 0
        while done < count {
            let got = try buffer.withUnsafeMutableBytes { all in
                Result { () throws(JournalError) in
                    try read(fd, at: offset + done, into: UnsafeMutableRawBufferPointer(rebasing: all[done..<count]), path: path)
                }
            }.get()
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// The whole file, refused (`.untrusted`) when larger than `limit`, into `result`
    /// (replacing its contents, reusing its storage when nothing else holds it).
    func readAll(_ fd: Int32, path: String, limit: Int, into result: inout [UInt8]) throws(JournalError) {
        result.removeAll(keepingCapacity: true)
        // Refused by its size before any of it is read (it may still grow while read: the
        // check below stays).
        if try size(fd, path: path) > limit { throw .untrusted(path: path, reason: "larger than \(limit) bytes") }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let offset = result.count
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(JournalError) in try read(fd, at: offset, into: buffer, path: path) }
            }.get()
            if count == 0 { return }
            result.append(contentsOf: chunk[0..<count])
            if result.count > limit { throw .untrusted(path: path, reason: "larger than \(limit) bytes") }
        }
    }

    public func readFile(_ path: String, limit: Int) throws(JournalError) -> [UInt8] {
        var result: [UInt8] = []
        try readFile(path, limit: limit, into: &result)
        return result
    }

    /// `readFile(_:limit:)` into `result`, reusing its storage when nothing else holds it.
    func readFile(_ path: String, limit: Int, into result: inout [UInt8]) throws(JournalError) {
        let fd = try openForReading(path)
        defer { close(fd) }
        try readAll(fd, path: path, limit: limit, into: &result)
    }

    func fileSize(_ path: String) -> Int? { status(path)?.size }

    func modificationTime(_ path: String) -> Int64? { status(path)?.modified }

    /// Whether `path` is a file the journal may read, replace or remove: true for a regular
    /// file, false when missing; a symlink (never followed, never silently replaced) or
    /// anything else is refused.
    @discardableResult
    public func checkRegularFile(_ path: String) throws(JournalError) -> Bool {
        switch kind(path) {
        case .missing: return false
        case .file: return true
        case .symlink: throw .untrusted(path: path, reason: "is a symbolic link")
        case .directory: throw .untrusted(path: path, reason: "is a directory")
        case .other: throw .untrusted(path: path, reason: "not a regular file")
        }
    }

    /// Creates a private directory if missing, durably: a new directory's name is made
    /// durable by fsyncing its parent (without it a power cut may take the directory, and
    /// every file in it, back: the cursors, the state, a new journal). Refuses a symlink or
    /// a file in its place.
    public func makeDirectory(_ path: String) throws(JournalError) {
        if try createDirectory(path) { try syncDirectory(FilePath.parentDirectory(of: path)) }
    }

    /// Creates every missing directory of `path`, each private and durable.
    public func makeDirectories(_ path: String) throws(JournalError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if kind(prefix) == .missing { try makeDirectory(prefix) }
            prefix += "/"
        }
    }

    /// Writes a small file whole and durably: temporary file, fsync, rename, directory fsync.
    /// After a crash the target holds the old content or the new, never a mix.
    /// `durably: false` leaves out the directory fsync: the replacement is atomic (a killed
    /// process or a power cut leaves the old file or the new, whole) but a power cut may undo
    /// it until `syncDirectory` (the durability pacing of cursors, journal-format.md section 9).
    public func replaceAtomically(_ path: String, with bytes: [UInt8], faultPrefix: String? = nil,
                                  durably: Bool = true) throws(JournalError) {
        try checkRegularFile(path)
        let output = try FileReplacement(path, in: self)
        try output.write(bytes)
        try output.commit(faultPrefix: faultPrefix, durably: durably)
    }

    /// Makes an existing regular file's content durable (fsync); a missing file is fine.
    func syncFile(_ path: String) throws(JournalError) {
        guard try checkRegularFile(path) else { return }
        let fd = try openForReading(path)
        defer { close(fd) }
        try sync(fd, path: path)
    }

    /// The canonical path of `path` even where its last components do not exist yet: the
    /// longest existing prefix resolved, the rest appended.
    func resolvedPath(_ path: String) -> String {
        var existing = path
        var rest: [String] = []
        while realPath(existing) == nil, existing != "/", existing != "." {
            rest.insert(FilePath.baseName(of: existing), at: 0)
            existing = FilePath.parentDirectory(of: existing)
        }
        let base = realPath(existing) ?? existing
        return ([base == "/" ? "" : base] + rest).joined(separator: "/")
    }
}

/// Path arithmetic, no I/O.
public enum FilePath {
    /// The directory part of `path`: "." when it has none, "/" for a file at the root.
    public static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    public static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
