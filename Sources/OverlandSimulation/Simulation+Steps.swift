import OverlandJournal
import OverlandSync

extension Simulation {
    /// Performs one step; returns what failed (meaningful only while the power is on).
    func perform(_ step: Step) -> String? {
        guard let journal, let appender else { return "no journal open" }
        do {
            switch step {
            case .log(let count, let pad): try logPoints(count, pad: pad, appender)
            case .seal: try appender.sealActive()
            case .timeIndex: try saveTimeIndex(journal)
            case .sync(let destination, let batch, let outcome): try sync(journal, destination, batch: batch, outcome)
            case .prune: try prune(journal)
            case .repair: try appender.repairAll()
            case .cut: break
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    static func line(id: Int, pad: Int) -> [UInt8] {
        Array("{\"i\":\(id),\"s\":\(1_800_000_000 + id),\"p\":\"\(String(repeating: "x", count: pad))\"}".utf8)
    }

    func logPoints(_ count: Int, pad: Int, _ appender: JournalAppender) throws(JournalError) {
        let first = model.nextID
        model.nextID += count
        for id in first..<(first + count) { try appender.append(Self.line(id: id, pad: pad), now: 0) }
        disk.now += 1
        _ = try appender.commit(wallClock: disk.now)
        model.committed.formUnion(first..<(first + count))
    }

    func saveTimeIndex(_ journal: Journal) throws(JournalError) {
        let index = try journal.timeIndex(key: Invariants.timeKey)
        try index.save(through: try journal.endSequence())
    }

    /// What a sync does, through the calls it makes: read the cursor, read a batch, send
    /// it, move the cursor once acknowledged (`CursorWrites`), save the destination's state.
    func sync(_ journal: Journal, _ destination: Int, batch: Int, _ outcome: Step.Delivery) throws(JournalError) {
        guard let lock = try journal.tryLockCursors() else { throw .io(operation: "cursor lock held", path: journal.path, reason: "", code: 0) }
        defer { withExtendedLifetime(lock) {} }
        let name = CursorName(Self.destinations[destination])!
        let next = try journal.cursor(for: name)
        let reader = try journal.records(from: next)
        var ids: [Int] = []
        var end = next
        while ids.count < batch, let record = try reader.next() {
            guard let id = Invariants.pointID(record.line) else { throw .untrusted(path: journal.path, reason: "record \(record.sequence) is not a point") }
            ids.append(id)
            end = record.sequence + 1
        }
        var state = try SyncState.load(journal: journal, destination: name.text)
        state.lastAttempt = disk.now
        guard !ids.isEmpty else { return }
        if outcome != .reset {
            for id in ids { model.received[destination][id, default: 0] += outcome == .duplicated ? 2 : 1 }
        }
        if outcome == .duplicated || outcome == .ackLost { model.resendAllowance[destination] += 1 }
        if outcome == .acknowledged || outcome == .duplicated {
            try CursorWrites.advance(journal, name, to: end)
            state.lastSuccess = disk.now
            state.consecutiveFailures = 0
        } else {
            state.consecutiveFailures += 1
        }
        try state.save(in: journal, as: SyncState.fileName(forDestination: name.text))
    }

    func prune(_ journal: Journal) throws(JournalError) {
        guard let lock = try journal.tryLockCursors() else { throw .io(operation: "cursor lock held", path: journal.path, reason: "", code: 0) }
        defer { withExtendedLifetime(lock) {} }
        let readers = Self.destinations.map { CursorName($0)! }
        try journal.removeSentSegments(now: disk.now, readers: readers)
    }
}
