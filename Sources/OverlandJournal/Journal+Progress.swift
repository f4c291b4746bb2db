/// Progress records (`state/progress-NAME`, journal-format.md section 9): a reader's place
/// between two durable writes of its cursor, overwritten in place after each
/// acknowledgement without an fsync. A reader is at its progress record's `next` when the
/// record is whole, of this journal and reader, and continues the cursor file as it is now
/// (its `base` is the cursor's `next`); otherwise at its cursor. Retention and the floor
/// use the cursor files alone.
extension Journal {
    /// What a reader's progress record tells, against its durable cursor.
    public enum ProgressReading: Sendable, Equatable {
        /// Whole and continuing the durable cursor: the reader is at `next` (at or past the cursor).
        case valid(UInt64)
        /// Not used, with why (`verify --json`'s code): `progress-not-file`, `progress-torn`
        /// (a wrong length, magic or CRC-32: what a power cut during its write leaves, zeros
        /// included), `progress-foreign` (another journal's or another reader's record),
        /// `progress-invalid` (whole, but its `next` is below its `base` or past 2^53),
        /// `progress-stale` (written over another cursor value than the cursor file's now).
        case ignored(code: String)
    }

    func progressPath(for name: CursorName) -> String { statePath + "/progress-" + name.text }

    /// The reader's progress record read against its durable cursor `durable`; nil when it
    /// has none. Never refuses: a record that cannot be used is only `.ignored`.
    public func readProgress(for name: CursorName, durable: UInt64) throws(JournalError) -> ProgressReading? {
        let file = progressPath(for: name)
        switch fs.kind(file) {
        case .missing: return nil
        case .file: break
        default: return .ignored(code: "progress-not-file")
        }
        let bytes: [UInt8]
        do {
            bytes = try fs.readFile(file, limit: ProgressRecord.size)
        } catch {
            guard case .untrusted = error else { throw error }
            return .ignored(code: "progress-torn")
        }
        guard let record = ProgressRecord(decoding: bytes) else { return .ignored(code: "progress-torn") }
        guard record.journalID == id, record.name == name else { return .ignored(code: "progress-foreign") }
        guard record.next >= record.base, record.next <= SequenceNumber.limit else { return .ignored(code: "progress-invalid") }
        guard record.base == durable else { return .ignored(code: "progress-stale") }
        return .valid(record.next)
    }

    /// The reader's progress record as `verify` reports it: nil without one, or when its
    /// cursor file is refused (the reader does not run).
    public func readProgress(for name: CursorName) throws(JournalError) -> ProgressReading? {
        guard case .valid(let durable) = try readDurableCursor(for: name) else { return nil }
        return try readProgress(for: name, durable: durable)
    }

    /// Overwrites the reader's progress record in place (same offset, same length: no
    /// rename, no metadata), fsynced only when `durably`. A missing record, or a file of
    /// another length, is first created whole and durably (temporary file, fsync, rename,
    /// directory fsync), so that a power cut never leaves a record's name without its bytes.
    func writeProgress(_ record: ProgressRecord, durably: Bool) throws(JournalError) {
        progressMemo.forgetAll()
        let file = progressPath(for: record.name)
        guard fs.kind(file) == .file, fs.status(file)?.size == ProgressRecord.size else {
            try fs.makeDirectory(statePath)
            try clearProgress(file)
            try fs.replaceAtomically(file, with: record.encoded, faultPrefix: "progress")
            return
        }
        try overwriteProgress(record, durably: durably)
    }

    /// Overwrites the reader's record, a regular file of `ProgressRecord.size` bytes, in
    /// place; a failure forgets what `progressMemo` held (the file is in doubt).
    func overwriteProgress(_ record: ProgressRecord, durably: Bool = false) throws(JournalError) {
        let file = progressPath(for: record.name)
        do {
            let fd = try fs.openForWriting(file)
            defer { fs.close(fd) }
            try fs.writeAll(fd, record.encoded, path: file)
            if durably { try fs.sync(fd, path: file) }
        } catch {
            progressMemo.forgetAll()
            throw error
        }
    }

    /// Writes a reader's cursor file at `next` (`write`) with its progress record, when it
    /// has one, settled there (`base` = `next` = the new value, fsynced): before the write
    /// when it lowers the reader, so that no higher record outlives the lowered cursor (a
    /// power cut bringing it back would skip what is to be sent again); after it otherwise,
    /// so that a kill between the two leaves the reader where the new cursor file says (the
    /// old record no longer continues it), not back at the old file.
    func writingCursor(of name: CursorName, at next: UInt64, _ write: () throws(JournalError) -> Void) throws(JournalError) {
        let lowers: Bool
        if case .valid(let place) = try readCursor(for: name) { lowers = place > next } else { lowers = true }
        if lowers { try settleProgress(name, at: next) }
        try write()
        if !lowers { try settleProgress(name, at: next) }
    }

    private func settleProgress(_ name: CursorName, at next: UInt64) throws(JournalError) {
        guard fs.kind(progressPath(for: name)) != .missing else { return }
        try writeProgress(ProgressRecord(journalID: id, name: name, base: next, next: next), durably: true)
    }

    /// Where an acknowledgement may be recorded in the reader's progress record alone: the
    /// `next` of its own cursor file (`cursors/NAME.json`, or `cursor.json` for the reader
    /// of a journal with one reader), when that is valid and neither it nor a valid
    /// progress record is past `next`. nil: the move must be a durable cursor write (a
    /// first cursor, a lowered one).
    func progressBase(for name: CursorName, upTo next: UInt64) throws(JournalError) -> UInt64? {
        var own = try readCursorFile(cursorPath(for: name), name: name)
        if own == nil, name == .default, try cursorNames().isEmpty { own = try readCursorFile(cursorPath, name: nil) }
        guard case .valid(let base)? = own, base <= next else { return nil }
        if case .valid(let ahead)? = try readProgress(for: name, durable: base), ahead > next { return nil }
        return base
    }

    /// Removes the reader's progress record, durably (a reader forgotten).
    func removeProgress(for name: CursorName) throws(JournalError) {
        progressMemo.forgetAll()
        let file = progressPath(for: name)
        guard fs.kind(file) != .missing else { return }
        try clearProgress(file)
        try fs.remove(file)
        try fs.syncDirectory(statePath)
    }

    /// Takes away whatever stands at a progress record's name that is not a regular file,
    /// so that it can be replaced: such a record is ignored, never refused (section 9), and
    /// a sync that refused to write over it would resend the same batch on every run. A
    /// link (never followed), FIFO or device is unlinked; a directory, which may hold
    /// someone's files, is renamed into `damaged/` whole.
    private func clearProgress(_ file: String) throws(JournalError) {
        switch fs.kind(file) {
        case .missing, .file: return
        case .symlink, .other: try fs.remove(file)
        case .directory:
            try fs.makeDirectory(damagedPath)
            try fs.rename(file, damagedPath + "/" + FilePath.baseName(of: file) + ".not-a-file-\(Journal.currentTime())")
            try fs.syncDirectory(damagedPath)
        }
        try fs.syncDirectory(statePath)
    }
}
