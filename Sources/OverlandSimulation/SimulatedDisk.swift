#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJournal
import Synchronization
import OverlandJSON

/// A disk in memory that knows, for every file and directory, what is durable and what is
/// still pending, so that a power cut can be simulated (`crashImage`): the journal runs on
/// it through the `FileSystem` seam exactly as on a real one.
///
/// - A file's data is durable once the file is fsynced; until then a power cut keeps or
///   drops each 4 KiB page written since (torn writes), and its length may be the old or
///   the new one (a grown file may end in zeros: the size reached the disk, the data not).
/// - A directory entry (a create, rename or unlink) is durable once its directory is
///   fsynced; until then a power cut may undo it. fsync of a file does not make its name
///   durable.
/// - Pending changes of different files and entries persist in any combination.
///
/// `ignores` makes the disk acknowledge fsyncs (of files, or of directories) and drop
/// them: a disk that lies, which the explorer must catch.
public final class SimulatedDisk: FileSystem, @unchecked Sendable {
    public static let pageSize = 4096

    /// Which fsyncs a lying disk drops.
    public enum Ignores: String, Sendable, CaseIterable {
        case nothing, fsync, dirFsync = "dir-fsync"
    }

    /// Touched only under `state`'s lock.
    final class Inode: @unchecked Sendable {
        let number: UInt64
        let isDirectory: Bool
        var data: [UInt8] = []
        var durableData: [UInt8] = []
        var entries: [String: UInt64] = [:]
        var durableEntries: [String: UInt64] = [:]
        var modified: Int64 = 0
        /// Pages a failed fsync dropped (Linux marks them clean): their durable bytes then,
        /// kept through the next fsync unless written again.
        var dropped: [Int: ArraySlice<UInt8>] = [:]
        var shared: Set<Int32> = []
        var exclusive: Int32?
        init(number: UInt64, isDirectory: Bool) {
            self.number = number
            self.isDirectory = isDirectory
        }
    }

    struct OpenFile {
        let inode: UInt64
        let append: Bool
        var offset = 0
    }

    struct State {
        var inodes: [UInt64: Inode] = [:]
        var open: [Int32: OpenFile] = [:]
        var nextDescriptor: Int32 = 3
        var nextInode: UInt64 = 2
        /// Changes made (writes, syncs, creates, renames, removals, truncates).
        var changes = 0
        var cutAt: Int?
        var dead = false
        var clock: Int64 = 1_800_000_000
        var trace: [String] = []
        /// Directory changes not yet durable, in the order made; each group is atomic (a
        /// rename is its unlink and its link together).
        var pendingLinks: [[Link]] = []
        /// A fault armed for a change at or after `Fault.at` (`injectFault`).
        var fault: Fault?
        var faultsFired = 0
        /// Set while a call's body is to fail part-way (`fire`).
        var injected: Fault.Kind?
        /// A tree whose device is gone (a stick pulled): every call under it fails.
        var vanished: String?
        /// A cut planned right after a file's new name is made durable (`cutPower(afterNameOf:)`).
        var cutAfterName: CutAfterName?
    }

    /// The power goes off at the change after the `remaining`-th directory fsync that
    /// follows a rename onto `path`.
    struct CutAfterName {
        let path: String
        var remaining: Int
        var renamed = false
    }

    /// What a change can be, for the faults that choose among them.
    enum ChangeKind {
        case create, write, fsync, truncate, mkdir, rename, unlink, dirFsync
    }

    /// A fault the process survives (issue 36), armed by `injectFault`.
    public struct Fault: Sendable, Equatable {
        public enum Kind: String, Sendable, CaseIterable {
            /// EIO on the next write, fsync or rename (nothing changes).
            case eio
            /// ENOSPC on the next write (half of it written first), fsync or rename.
            case enospc
            /// The next file fsync fails with EIO and the pages it would have written are
            /// dropped: marked clean, never written, a later fsync succeeding (Linux).
            case fsyncDrops = "fsync-drops"
            /// The tree under `path` vanishes (a stick pulled): from the change on, every
            /// call there fails with EIO until `replug`.
            case vanish
            /// EIO on the next directory fsync only: the entries it would have made
            /// durable (a rename just done) stay in the cache, undone by a later cut unless
            /// another fsync of that directory succeeds. Where a failure after a rename is
            /// told from one before it.
            case dirFsyncFails = "dir-fsync-fails"
            /// The same on the next directory fsync under `path` (the stick): where a move
            /// makes a moved segment's rename durable.
            case stickDirFsyncFails = "stick-dir-fsync-fails"
            /// EIO on the directory fsync that would make the rename onto `path` durable (a
            /// cursor file renamed into place, its new name left in the cache only): where a
            /// move's pass stops after its last cursor, to be run again with every cursor
            /// read as passed though one may come back lower after a cut.
            case nameSyncFails = "name-sync-fails"
        }
        public let kind: Kind
        public let at: Int
        /// How many calls in a row fail (eio, enospc): a device failing for a while.
        public let count: Int
        public let path: String?

        public init(kind: Kind, at: Int, count: Int = 1, path: String? = nil) {
            self.kind = kind
            self.at = at
            self.count = count
            self.path = path
        }

        /// Whether a change of `path` can take it: any, but for `stickDirFsyncFails` (under
        /// `path`) and `nameSyncFails` (the directory holding `path`).
        func reaches(_ path: String) -> Bool {
            let normal = "/" + SimulatedDisk.components(path).joined(separator: "/")
            switch kind {
            case .stickDirFsyncFails: return SimulatedDisk.isUnder(normal, self.path ?? "/")
            case .nameSyncFails: return self.path.map { "/" + SimulatedDisk.components($0).dropLast().joined(separator: "/") } == normal
            default: return true
            }
        }

        func applies(to change: ChangeKind) -> Bool {
            switch kind {
            case .eio, .enospc: [.write, .fsync, .rename, .dirFsync, .truncate, .create].contains(change)
            case .fsyncDrops: change == .fsync
            case .dirFsyncFails, .stickDirFsyncFails, .nameSyncFails: change == .dirFsync
            case .vanish: true
            }
        }
    }

    /// A directory entry set (`target` an inode) or removed (nil).
    struct Link {
        let directory: UInt64
        let name: String
        let target: UInt64?
    }

    static let root: UInt64 = 1
    let ignores: Ignores
    let state: Mutex<State>
    /// Keeps a line per change (for a failing seed's trace).
    let tracing: Bool

    /// An empty disk: one durable root directory.
    /// Trees on a FAT file system (a USB stick): there a rename is two directory writes
    /// (a power cut may keep both names or neither), and a file grown without its fsync
    /// may show stale clusters (another file's old bytes) past its old end, not zeros.
    public let fatTrees: [String]

    public init(ignores: Ignores = .nothing, tracing: Bool = false, fatTrees: [String] = []) {
        self.ignores = ignores
        self.tracing = tracing
        self.fatTrees = fatTrees
        var initial = State()
        initial.inodes[Self.root] = Inode(number: Self.root, isDirectory: true)
        state = Mutex(initial)
    }

    init(ignores: Ignores, tracing: Bool, fatTrees: [String], inodes: [UInt64: Inode], nextInode: UInt64, clock: Int64) {
        precondition(inodes[Self.root] != nil)
        self.ignores = ignores
        self.tracing = tracing
        self.fatTrees = fatTrees
        var initial = State()
        initial.inodes = inodes
        initial.nextInode = nextInode
        initial.clock = clock
        state = Mutex(initial)
    }

    // MARK: - Control

    /// Cuts the power just before the change numbered `change` (counted from 0 since the
    /// disk was made): every call from then on fails with EIO and changes nothing, and
    /// `crashImage(using:)` tells what the disk kept.
    public func cutPower(beforeChange change: Int) {
        state.withLock { $0.cutAt = change }
    }

    /// Plans a power cut right after the `count`-th time a rename onto `path` is made
    /// durable by its directory's fsync (a file replaced atomically, its new name on the
    /// disk): the next change fails, the power off. Fewer: no cut.
    public func cutPower(afterNameOf path: String, isMadeDurable count: Int) {
        state.withLock { $0.cutAfterName = CutAfterName(path: "/" + Self.components(path).joined(separator: "/"), remaining: count) }
    }

    /// Changes made so far.
    public var changes: Int { state.withLock { $0.changes } }

    /// Arms a fault for the first change it applies to at or after `fault.at`.
    public func injectFault(_ fault: Fault) {
        state.withLock { $0.fault = fault }
    }

    /// Disarms a fault that did not fire; returns how many faults fired so far.
    @discardableResult
    public func disarmFault() -> Int {
        state.withLock { state in
            state.fault = nil
            return state.faultsFired
        }
    }

    /// Faults that fired so far.
    public var faultsFired: Int { state.withLock { $0.faultsFired } }

    /// Whether the power is off (every call fails).
    public var isDead: Bool { state.withLock { $0.dead } }

    /// The simulated wall clock (Unix seconds), for modification times.
    public var now: Int64 {
        get { state.withLock { $0.clock } }
        set { state.withLock { $0.clock = newValue } }
    }

    /// The changes made, one line each, when `tracing`.
    public var trace: [String] { state.withLock { $0.trace } }

    /// Cuts the power now; returns a crash image.
    public func cutPowerNow(using random: inout SeededRandom) -> SimulatedDisk {
        powerOff()
        return crashImage(using: &random)
    }

    /// Cuts the power now (every later call fails); `crashImage` tells what the disk kept.
    public func powerOff() {
        state.withLock { $0.dead = true }
    }

    /// One of the states a power cut leaves (once the power is off: the state is frozen),
    /// chosen by `random`: a new disk, its power on, holding it durably. `cut` fixes how
    /// the pending changes are chosen (`Cut`); nil draws it too.
    public func crashImage(using random: inout SeededRandom) -> SimulatedDisk {
        crashImage(using: &random, cut: nil)
    }

    func crashImage(using random: inout SeededRandom, cut: Cut?) -> SimulatedDisk {
        state.withLock { state in
            precondition(state.dead, "a crash image is taken once the power is off")
            return Self.crashImage(of: state, ignores: ignores, tracing: tracing, fatTrees: fatTrees, cut: cut, using: &random)
        }
    }

    // MARK: - Errors and lookup

    static func failure(_ operation: String, _ path: String, _ code: Int32) -> JournalError {
        .io(operation: operation, path: path, reason: SystemErrorText.of(code), code: code)
    }

    static func components(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init).filter { $0 != "." }
    }

    /// The inode `path` names, nil when missing.
    static func resolve(_ path: String, in state: State) -> Inode? {
        var node = state.inodes[root]!
        for name in components(path) {
            guard node.isDirectory, let next = node.entries[name], let inode = state.inodes[next] else { return nil }
            node = inode
        }
        return node
    }

    /// The directory holding `path`'s last component and that component.
    static func parent(of path: String, in state: State) throws(JournalError) -> (Inode, String) {
        var names = components(path)
        guard let last = names.popLast() else { throw failure("cannot use", path, EINVAL) }
        guard let directory = resolve("/" + names.joined(separator: "/"), in: state), directory.isDirectory else {
            throw failure("cannot open", path, ENOENT)
        }
        return (directory, last)
    }
}
