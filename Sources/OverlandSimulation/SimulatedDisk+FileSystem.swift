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
    func change<T>(_ what: @autoclosure () -> String, _ kind: ChangeKind, path: String,
                   _ body: (inout State) throws(JournalError) -> T) throws(JournalError) -> T {
        try state.withLock { (state) throws(JournalError) -> T in
            if state.dead { throw Self.failure("cannot write (power cut)", path, EIO) }
            if state.cutAt == state.changes {
                state.dead = true
                throw Self.failure("cannot write (power cut)", path, EIO)
            }
            state.changes += 1
            if tracing { state.trace.append(what()) }
            if let fault = state.fault, state.changes > fault.at, fault.applies(to: kind), fault.reaches(path),
               fault.kind != .nameSyncFails || Self.renamePending(onto: fault.path ?? "", in: state) {
                switch try Self.fire(fault, on: kind, path: path, in: &state) {
                case .proceed: break
                case .inject(let injected):
                    // The call's body does part of it, then fails (`injected`).
                    state.injected = injected
                    defer { state.injected = nil }
                    return try body(&state)
                }
            }
            try Self.refuseIfGone(path, in: state)
            return try body(&state)
        }
    }

    enum Firing {
        case proceed
        case inject(Fault.Kind)
    }

    /// A fault armed and due: fails the call, or tells its body to fail part-way (a short
    /// write, an fsync that drops its pages), or pulls a tree out (the call goes on when
    /// it is elsewhere).
    static func fire(_ fault: Fault, on kind: ChangeKind, path: String, in state: inout State) throws(JournalError) -> Firing {
        state.faultsFired += 1
        switch fault.kind {
        case .vanish:
            state.fault = nil
            state.vanished = fault.path
            return .proceed
        case .fsyncDrops:
            state.fault = nil
            return .inject(.fsyncDrops)
        case .dirFsyncFails, .stickDirFsyncFails, .nameSyncFails:
            state.fault = nil
            throw failure("cannot sync the directory (injected)", path, EIO)
        case .eio, .enospc:
            state.fault = fault.count > 1 ? Fault(kind: fault.kind, at: fault.at, count: fault.count - 1) : nil
            if fault.kind == .enospc && kind == .write { return .inject(.enospc) }
            throw failure("cannot write (injected \(fault.kind.rawValue))", path, fault.kind == .eio ? EIO : ENOSPC)
        }
    }

    /// Whether a rename onto `path` waits for its directory's fsync.
    static func renamePending(onto path: String, in state: State) -> Bool {
        guard let (directory, name) = try? parent(of: path, in: state) else { return false }
        return state.pendingLinks.contains { $0.contains { $0.directory == directory.number && $0.name == name && $0.target != nil } }
    }

    func isOnFAT(_ path: String) -> Bool {
        let normal = "/" + Self.components(path).joined(separator: "/")
        return fatTrees.contains { Self.isUnder(normal, $0) }
    }

    static func isUnder(_ path: String, _ tree: String) -> Bool {
        path == tree || path.hasPrefix(tree + "/")
    }

    /// A call under a tree that vanished fails as a pulled stick's do.
    static func refuseIfGone(_ path: String, in state: State) throws(JournalError) {
        if let gone = state.vanished, isUnder("/" + components(path).joined(separator: "/"), gone) {
            throw failure("cannot use (the device is gone)", path, EIO)
        }
    }

    /// Reads the state; refused once the power is off.
    func look<T>(_ path: String, _ body: (inout State) throws(JournalError) -> T) throws(JournalError) -> T {
        try state.withLock { (state) throws(JournalError) -> T in
            if state.dead { throw Self.failure("cannot read (power cut)", path, EIO) }
            try Self.refuseIfGone(path, in: state)
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
        try change("create \(path)", .create, path: path) { (state) throws(JournalError) -> Int32 in
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
        try change("write \(path) +\(bytes.count)", .write, path: path) { (state) throws(JournalError) in
            let inode = try Self.file(fd, path, in: state)
            var open = state.open[fd]!
            let start = open.append ? inode.data.count : open.offset
            // A full disk takes part of a write, then refuses the rest.
            let bytes = state.injected == .enospc ? UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count / 2)]) : bytes
            if inode.data.count < start + bytes.count {
                inode.data += [UInt8](repeating: 0, count: start + bytes.count - inode.data.count)
            }
            inode.data.withUnsafeMutableBytes { all in
                UnsafeMutableRawBufferPointer(rebasing: all[start..<(start + bytes.count)]).copyMemory(from: bytes)
            }
            // A page written again is dirty again: the next fsync writes it.
            if !bytes.isEmpty { for page in (start / Self.pageSize)...((start + bytes.count - 1) / Self.pageSize) { inode.dropped[page] = nil } }
            inode.modified = state.clock
            open.offset = start + bytes.count
            state.open[fd] = open
            if state.injected == .enospc { throw Self.failure("cannot write (injected enospc)", path, ENOSPC) }
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
        try change("fsync \(path)", .fsync, path: path) { (state) throws(JournalError) in
            let inode = try Self.file(fd, path, in: state)
            if state.injected == .fsyncDrops {
                Self.dropDirtyPages(of: inode)
                throw Self.failure("cannot sync (injected fsync-drops)", path, EIO)
            }
            if ignores != .fsync { Self.makeDurable(inode) }
        }
    }

    /// A failed fsync as Linux does it: the dirty pages are marked clean, so they never
    /// reach the disk (the cache still shows them) unless written again.
    static func dropDirtyPages(of inode: Inode) {
        let length = max(inode.data.count, inode.durableData.count)
        var page = 0
        while page * pageSize < length {
            let range = (page * pageSize)..<((page + 1) * pageSize)
            let old = inode.durableData[min(range.lowerBound, inode.durableData.count)..<min(range.upperBound, inode.durableData.count)]
            let new = inode.data[min(range.lowerBound, inode.data.count)..<min(range.upperBound, inode.data.count)]
            if old != new, inode.dropped[page] == nil { inode.dropped[page] = old }
            page += 1
        }
    }

    /// An fsync: the file's bytes durable, but the pages an earlier failed fsync dropped,
    /// which keep their old durable bytes (zeros where there were none).
    static func makeDurable(_ inode: Inode) {
        var durable = inode.data
        for (page, old) in inode.dropped {
            let start = page * pageSize
            guard start < durable.count else { continue }
            for index in start..<min(durable.count, start + pageSize) {
                durable[index] = index - start < old.count ? old[old.startIndex + index - start] : 0
            }
        }
        // Still clean in the cache, never written: they stay dropped until written again.
        inode.durableData = durable
    }

    public func truncate(_ fd: Int32, to size: Int, path: String) throws(JournalError) {
        try change("truncate \(path) \(size)", .truncate, path: path) { (state) throws(JournalError) in
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
        try change("mkdir \(path)", .mkdir, path: path) { (state) throws(JournalError) in
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
        try change("rename \(from) -> \(to)", .rename, path: from) { (state) throws(JournalError) in
            let (source, oldName) = try Self.parent(of: from, in: state)
            let (target, newName) = try Self.parent(of: to, in: state)
            guard let number = source.entries[oldName] else { throw Self.failure("cannot rename to '\(to)'", from, ENOENT) }
            source.entries[oldName] = nil
            target.entries[newName] = number
            if let cut = state.cutAfterName, cut.path == "/" + Self.components(to).joined(separator: "/") { state.cutAfterName?.renamed = true }
            let unlink = Link(directory: source.number, name: oldName, target: nil)
            let link = Link(directory: target.number, name: newName, target: number)
            // FAT writes the new entry and frees the old one separately: a power cut may keep
            // either, both names or neither. Elsewhere a rename is one change.
            if isOnFAT(from) {
                state.pendingLinks += [[link], [unlink]]
            } else {
                state.pendingLinks.append([unlink, link])
            }
        }
    }

    public func remove(_ path: String) throws(JournalError) {
        guard kind(path) != .missing else { return }
        try change("unlink \(path)", .unlink, path: path) { (state) throws(JournalError) in
            let (directory, name) = try Self.parent(of: path, in: state)
            if let number = directory.entries[name], state.inodes[number]?.isDirectory == true {
                throw Self.failure("cannot remove", path, EISDIR)
            }
            directory.entries[name] = nil
            state.pendingLinks.append([Link(directory: directory.number, name: name, target: nil)])
        }
    }

    public func syncDirectory(_ path: String) throws(JournalError) {
        try change("fsync-dir \(path)", .dirFsync, path: path) { (state) throws(JournalError) in
            guard let inode = Self.resolve(path, in: state), inode.isDirectory else {
                throw Self.failure("cannot open directory", path, ENOENT)
            }
            if ignores != .dirFsync { Self.makeDurable(directory: inode.number, in: &state) }
            Self.countNameMadeDurable(directory: path, in: &state)
        }
    }

    /// A planned `cutPower(afterNameOf:)`: once its file's rename is made durable for the
    /// planned time, the next change cuts the power.
    static func countNameMadeDurable(directory path: String, in state: inout State) {
        guard var cut = state.cutAfterName, cut.renamed,
              "/" + components(cut.path).dropLast().joined(separator: "/") == "/" + components(path).joined(separator: "/") else { return }
        cut.remaining -= 1
        cut.renamed = false
        state.cutAfterName = cut.remaining > 0 ? cut : nil
        if cut.remaining == 0 { state.cutAt = state.changes }
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
