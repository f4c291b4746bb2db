import OverlandJournal

/// What a move promises (journal-format.md section 12), checked after every power cut
/// once the real code has opened both journals: the stick's journal verifies with no
/// damage and holds no record twice; no record is sendable from both journals once no
/// move is pending; no record the source's floor had passed (sent to every destination)
/// when a move began ever reaches the stick; and (`lost`) every record is unsent in the
/// source, or on the stick (unsent there or at its receiver), or at the receiver.
extension Invariants {
    /// The stick's journal as the checks need it: its records by id, and the cursor of the
    /// machine that syncs it (destination `stick`).
    struct Stick {
        var seen: [Int: UInt64] = [:]
        var cursor: UInt64 = 0
    }

    /// The stick's journal read and checked on its own (empty before the first move).
    static func stick(_ target: Journal?, allowedTwice: Set<Int>) throws(JournalError) -> (Stick, Finding?) {
        guard let target else { return (Stick(), nil) }
        if let damage = try target.verify().damaged.first {
            return (Stick(), Finding(kind: "damage", message: "journal verify of the stick: \(damage)"))
        }
        let (seen, problem) = try points(target, allowedTwice: allowedTwice)
        if let problem { return (Stick(), problem) }
        let cursor = try target.cursor(for: CursorName(Simulation.receivers[Simulation.stick])!)
        let end = try target.endSequence()
        if cursor > end {
            return (Stick(), Finding(kind: "cursor-past-end", message: "the stick's cursor at \(cursor) is past its journal's end \(end)"))
        }
        return (Stick(seen: seen, cursor: cursor), nil)
    }

    /// Records new on the stick must not be ones every destination had acknowledged when
    /// the move began (`Model.acknowledged`); they are noted as seen there.
    static func observe(_ stick: Stick, model: inout Simulation.Model) -> Finding? {
        for id in stick.seen.keys.sorted() where !model.targetIDs.contains(id) {
            if model.acknowledged.contains(id), !model.writtenTwice.contains(id) {
                return Finding(kind: "moved-sent", message: "\(describe(id)) reached the stick although the source's floor had passed it (every destination had it) when the move began")
            }
            model.targetIDs.insert(id)
        }
        return nil
    }

    /// With no move pending, a record on the stick must be behind every cursor of the
    /// source: sendable from one journal only.
    static func sendableFromBoth(_ seen: [Int: UInt64], cursors: [UInt64], stick: Stick, model: Simulation.Model) -> Finding? {
        for id in stick.seen.keys.sorted() where !model.writtenTwice.contains(id) {
            guard let sequence = seen[id] else { continue }
            for (index, name) in Simulation.destinations.enumerated() where sequence >= cursors[index] {
                return Finding(kind: "both", message: "\(describe(id)) is on the stick and unsent in the source for '\(name)' (record \(sequence), cursor \(cursors[index])) with no move pending")
            }
        }
        return nil
    }
}
