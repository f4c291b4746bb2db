#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJournal

/// The POSIX calls the journal makes, on the simulated disk. Nothing here is ever durable
/// by itself: `sync` and `syncDirectory` make it so.
extension SimulatedDisk {
    /// Runs a change: refused once the power is off; the power goes off when the cut
    /// planned for this change is reached.
    func change<T>(_ what: @autoclosure () -> String, path: String,
                   _ body: (inout State) throws(JournalError) -> T) throws(JournalError) -> T {
        try state.withLock { (state) throws(JournalError) -> T in
            if state.dead { throw Self.failure("cannot write (power cut)", path, EIO) }
            if state.cutAt == state.changes {
                state.dead = true
                throw Self.failure("cannot write (power cut)", path, EIO)
            }
            state.changes += 1
            if tracing { state.trace.append(what()) }
            return try body(&state)
        }
    }

    /// Reads the state; refused once the power is off.
    func look<T>(_ path: String, _ body: (inout State) throws(JournalError) -> T) throws(JournalError) -> T {
        try state.withLock { (state) throws(JournalError) -> T in
            if state.dead { throw Self.failure("cannot read (power cut)", path, EIO) }
            return try body(&state)
        }
    }

    func openFile(_ path: String, append: Bool) throws(JournalError) -> Int32 {
        try look(path) { (state) throws(JournalError) -> Int32 in
            guard let inode = Self.resolve(path, in: state) else { throw Self.failure("cannot open", path, ENOENT) }
            guard !inode.isDirectory else { throw .untrusted(path: path, reason: "not a regular file") }
            let fd = state.nextDescriptor
            state.nextDescriptor += 1
            state.open[fd] = OpenFile(inode: inode.number, append: append)
            return fd
        }
    }

    static func file(_ fd: Int32, _ path: String, in state: State) throws(JournalError) -> Inode {
        guard let open = state.open[fd], let inode = state.inodes[open.inode] else { throw failure("bad descriptor", path, EBADF) }
        return inode
    }

    public func openForReading(_ path: String) throws(JournalError) -> Int32 { try openFile(path, append: false) }

    public func openForWriting(_ path: String) throws(JournalError) -> Int32 { try openFile(path, append: false) }

    public func openForAppending(_ path: String) throws(JournalError) -> Int32 { try openFile(path, append: true) }

    public func createExclusive(_ path: String) throws(JournalError) -> Int32 {
        try change("create \(path)", path: path) { (state) throws(JournalError) -> Int32 in
            let (directory, name) = try Self.parent(of: path, in: state)
            guard directory.entries[name] == nil else { throw Self.failure("cannot create", path, EEXIST) }
            let inode = Inode(number: state.nextInode, isDirectory: false)
            inode.modified = state.clock
            state.nextInode += 1
            state.inodes[inode.number] = inode
            directory.entries[name] = inode.number
            state.pendingLinks.append([Link(directory: directory.number, name: name, target: inode.number)])
            let fd = state.nextDescriptor
            state.nextDescriptor += 1
            state.open[fd] = OpenFile(inode: inode.number, append: false)
            return fd
        }
    }

    public func close(_ fd: Int32) {
        state.withLock { state in
            guard let open = state.open.removeValue(forKey: fd), let inode = state.inodes[open.inode] else { return }
            inode.shared.remove(fd)
            if inode.exclusive == fd { inode.exclusive = nil }
        }
    }

    public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(JournalError) {
        try change("write \(path) +\(bytes.count)", path: path) { (state) throws(JournalError) in
            let inode = try Self.file(fd, path, in: state)
            var open = state.open[fd]!
            let start = open.append ? inode.data.count : open.offset
            if inode.data.count < start + bytes.count {
                inode.data += [UInt8](repeating: 0, count: start + bytes.count - inode.data.count)
            }
            inode.data.withUnsafeMutableBytes { all in
                UnsafeMutableRawBufferPointer(rebasing: all[start..<(start + bytes.count)]).copyMemory(from: bytes)
            }
            inode.modified = state.clock
            open.offset = start + bytes.count
            state.open[fd] = open
        }
    }

    public func read(_ fd: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(JournalError) -> Int {
        try look(path) { (state) throws(JournalError) -> Int in
            let inode = try Self.file(fd, path, in: state)
            let count = max(0, min(buffer.count, inode.data.count - offset))
            guard count > 0 else { return 0 }
            inode.data.withUnsafeBytes { all in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[offset..<(offset + count)]))
            }
            return count
        }
    }

    public func sync(_ fd: Int32, path: String) throws(JournalError) {
        try change("fsync \(path)", path: path) { (state) throws(JournalError) in
            let inode = try Self.file(fd, path, in: state)
            if ignores != .fsync { inode.durableData = inode.data }
        }
    }

    public func truncate(_ fd: Int32, to size: Int, path: String) throws(JournalError) {
        try change("truncate \(path) \(size)", path: path) { (state) throws(JournalError) in
            let inode = try Self.file(fd, path, in: state)
            if inode.data.count > size {
                inode.data.removeSubrange(size...)
            } else {
                inode.data += [UInt8](repeating: 0, count: size - inode.data.count)
            }
        }
    }

    public func size(_ fd: Int32, path: String) throws(JournalError) -> Int {
        try look(path) { (state) throws(JournalError) -> Int in try Self.file(fd, path, in: state).data.count }
    }

    public func identity(_ fd: Int32, path: String) throws(JournalError) -> FileIdentity {
        try look(path) { (state) throws(JournalError) -> FileIdentity in
            FileIdentity(device: 1, inode: try Self.file(fd, path, in: state).number)
        }
    }

    public func dropCache(_ fd: Int32) {}

    public func kind(_ path: String) -> FileKind {
        (try? lookUp(path)) ?? .missing
    }

    public func lookUp(_ path: String) throws(JournalError) -> FileKind {
        try look(path) { (state) throws(JournalError) -> FileKind in
            guard let inode = Self.resolve(path, in: state) else { return .missing }
            return inode.isDirectory ? .directory : .file
        }
    }

    public func status(_ path: String) -> FileStatus? {
        try? look(path) { (state) throws(JournalError) -> FileStatus? in
            guard let inode = Self.resolve(path, in: state) else { return nil }
            return FileStatus(size: inode.data.count, modified: inode.modified, identity: FileIdentity(device: 1, inode: inode.number))
        } ?? nil
    }

    public func writers(of path: String) -> FileWriters? {
        kind(path) == .missing ? nil : FileWriters(owner: getuid(), mode: 0o700, me: getuid())
    }

    public func isReadOnly(_ path: String) -> Bool { false }

    public func createDirectory(_ path: String) throws(JournalError) -> Bool {
        switch kind(path) {
        case .directory: return false
        case .missing: break
        default: throw .untrusted(path: path, reason: "exists and is not a directory")
        }
        try change("mkdir \(path)", path: path) { (state) throws(JournalError) in
            let (directory, name) = try Self.parent(of: path, in: state)
            let inode = Inode(number: state.nextInode, isDirectory: true)
            state.nextInode += 1
            state.inodes[inode.number] = inode
            directory.entries[name] = inode.number
            state.pendingLinks.append([Link(directory: directory.number, name: name, target: inode.number)])
        }
        return true
    }

    public func listDirectory(_ path: String) throws(JournalError) -> [String] {
        try look(path) { (state) throws(JournalError) -> [String] in
            guard let inode = Self.resolve(path, in: state), inode.isDirectory else { throw Self.failure("cannot list", path, ENOENT) }
            // Sorted: a replay must see the same order.
            return inode.entries.keys.sorted()
        }
    }

    public func rename(_ from: String, _ to: String) throws(JournalError) {
        try change("rename \(from) -> \(to)", path: from) { (state) throws(JournalError) in
            let (source, oldName) = try Self.parent(of: from, in: state)
            let (target, newName) = try Self.parent(of: to, in: state)
            guard let number = source.entries[oldName] else { throw Self.failure("cannot rename to '\(to)'", from, ENOENT) }
            source.entries[oldName] = nil
            target.entries[newName] = number
            state.pendingLinks.append([Link(directory: source.number, name: oldName, target: nil),
                                       Link(directory: target.number, name: newName, target: number)])
        }
    }

    public func remove(_ path: String) throws(JournalError) {
        guard kind(path) != .missing else { return }
        try change("unlink \(path)", path: path) { (state) throws(JournalError) in
            let (directory, name) = try Self.parent(of: path, in: state)
            if let number = directory.entries[name], state.inodes[number]?.isDirectory == true {
                throw Self.failure("cannot remove", path, EISDIR)
            }
            directory.entries[name] = nil
            state.pendingLinks.append([Link(directory: directory.number, name: name, target: nil)])
        }
    }

    public func syncDirectory(_ path: String) throws(JournalError) {
        try change("fsync-dir \(path)", path: path) { (state) throws(JournalError) in
            guard let inode = Self.resolve(path, in: state), inode.isDirectory else {
                throw Self.failure("cannot open directory", path, ENOENT)
            }
            if ignores != .dirFsync { Self.makeDurable(directory: inode.number, in: &state) }
        }
    }

    /// The pending changes that touch `directory` become durable (a rename whole, even
    /// when its other directory is not synced: it is one change).
    static func makeDurable(directory: UInt64, in state: inout State) {
        var rest: [[Link]] = []
        for group in state.pendingLinks {
            guard group.contains(where: { $0.directory == directory }) else {
                rest.append(group)
                continue
            }
            for link in group { state.inodes[link.directory]?.durableEntries[link.name] = link.target }
        }
        state.pendingLinks = rest
    }

    public func realPath(_ path: String) -> String? {
        guard kind(path) != .missing else { return nil }
        return "/" + Self.components(path).joined(separator: "/")
    }

    public func mountType(of path: String) -> String? { "simulated" }

    public func openLock(_ path: String, create: Bool, readOnlyFallback: Bool) throws(JournalError) -> Int32 {
        if create && kind(path) == .missing { close(try createExclusive(path)) }
        return try openFile(path, append: false)
    }

    /// flock's rules between descriptors: one process holding two descriptors conflicts
    /// with itself. Waiting would never end here (one thread), so a conflict that would
    /// wait is an error.
    public func lock(_ fd: Int32, _ mode: FileLock.Mode, wait: Bool, path: String) throws(JournalError) -> Bool {
        try look(path) { (state) throws(JournalError) -> Bool in
            let inode = try Self.file(fd, path, in: state)
            let others = inode.shared.subtracting([fd])
            let conflict = (inode.exclusive != nil && inode.exclusive != fd) || (mode == .exclusive && !others.isEmpty)
            if conflict {
                if wait { throw Self.failure("cannot lock (would wait forever in the simulation)", path, EDEADLK) }
                return false
            }
            inode.shared.remove(fd)
            if inode.exclusive == fd { inode.exclusive = nil }
            if mode == .exclusive { inode.exclusive = fd } else { inode.shared.insert(fd) }
            return true
        }
    }

    public func unlock(_ fd: Int32) {
        state.withLock { state in
            guard let open = state.open[fd], let inode = state.inodes[open.inode] else { return }
            inode.shared.remove(fd)
            if inode.exclusive == fd { inode.exclusive = nil }
        }
    }
}
