/// Small state files of the tools, in `state/` (journal-format.md section 1): each is
/// replaced whole and durably, private, never followed through a symlink.
extension Journal {
    /// The largest state file read back.
    public static let maxStateFileBytes = 64 << 10

    private func statePath(_ name: String) throws(JournalError) -> String {
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        precondition(allowed && !name.isEmpty && !name.hasPrefix("."), "state file names are lower-case words")
        return statePath + "/" + name
    }

    /// A state file's bytes, or nil when it does not exist.
    public func readState(_ name: String) throws(JournalError) -> [UInt8]? {
        let path = try statePath(name)
        guard try fs.checkRegularFile(path) else { return nil }
        return try fs.readFile(path, limit: Self.maxStateFileBytes)
    }

    /// Replaces a state file whole: after a crash it holds the old bytes or the new.
    /// `durably: false` leaves out the fsyncs: a kill leaves the old or the new bytes, a
    /// power cut may bring back the old (for a run's progress, saved durably at its end).
    public func writeState(_ name: String, _ bytes: [UInt8], durably: Bool = true) throws(JournalError) {
        try fs.makeDirectory(statePath)
        try fs.replaceAtomically(try statePath(name), with: bytes, durably: durably)
    }

    /// Removes a state file, durably; a missing one is fine.
    public func removeState(_ name: String) throws(JournalError) {
        let path = try statePath(name)
        guard try fs.checkRegularFile(path) else { return }
        try fs.remove(path)
        if fs.kind(statePath) == .directory { try fs.syncDirectory(statePath) }
    }

    /// Renames a state file that cannot be used (unreadable, or a directory where a file
    /// belongs) into `damaged/` as `NAME.LABEL-TIME`, durably: kept for inspection, never
    /// read again, and out of the way of the file that replaces it. Returns where it went.
    func setAsideState(_ name: String, label: String) throws(JournalError) -> String {
        let from = try statePath(name)
        try fs.makeDirectory(damagedPath)
        let to = damagedPath + "/" + name + "." + label + "-\(Journal.currentTime())"
        try fs.rename(from, to)
        try fs.syncDirectory(statePath)
        try fs.syncDirectory(damagedPath)
        return to
    }

    /// The path of a state file, for watching it change.
    public func statePath(of name: String) -> String { statePath + "/" + name }

    /// Takes an exclusive lock named `name`, waiting for it (for a trip's start and stop,
    /// which check and then write). The lock lasts as long as the returned value.
    public func lock(_ name: String) throws(JournalError) -> JournalLock {
        try fs.makeDirectory(statePath)
        let lock = try FileLock(path: try statePath(name), create: true, in: fs)
        try lock.lock(.exclusive)
        return JournalLock(lock)
    }

    /// Takes an exclusive lock named `name` without waiting; nil when another process
    /// holds it. The lock lasts as long as the returned value.
    public func tryLock(_ name: String) throws(JournalError) -> JournalLock? {
        try fs.makeDirectory(statePath)
        let lock = try FileLock(path: try statePath(name), create: true, in: fs)
        return try lock.tryLock(.exclusive) ? JournalLock(lock) : nil
    }
}

/// A held lock; released when this value goes away.
public final class JournalLock: @unchecked Sendable {
    private let lock: FileLock

    init(_ lock: FileLock) { self.lock = lock }

    deinit { lock.unlock() }
}
