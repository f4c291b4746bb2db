import OverlandJournal
import OverlandSync

/// What must hold after every power cut, once the real code has recovered the journal
/// (issue 26): every committed point is in the journal exactly once or, gone by retention,
/// at every receiver; every point is at a receiver or still unsent for it; resends stay
/// within one batch per lost acknowledgement, duplicate or power cut; the journal verifies
/// with no damage; no cursor passes the journal's end and the floor passes no cursor; the
/// time index holds every point's second; every state file reads.
enum Invariants {
    /// An invariant that did not hold: which (a short word, kept while shrinking) and how.
    struct Finding {
        let kind: String
        let message: String
    }

    static let device: [UInt8] = Array("sim".utf8)

    /// What starts a point and its id: an opening brace (0x7B), then `"i":`.
    static let idMarker: [UInt8] = [0x7B] + Array(#""i":"#.utf8)

    /// A point's id: the digits after `idMarker`.
    static func pointID(_ line: ArraySlice<UInt8>) -> Int? {
        number(after: idMarker, in: line)
    }

    /// The time index's key of a point: its second, one device.
    static func timeKey(_ line: ArraySlice<UInt8>) -> (second: Int64, device: ArraySlice<UInt8>)? {
        guard let second = number(after: Array(#","s":"#.utf8), in: line) else { return nil }
        return (Int64(second), device[...])
    }

    /// Every point id in a request body, in order.
    static func pointIDs(in body: ArraySlice<UInt8>) -> [Int] {
        var ids: [Int] = []
        var rest = body
        let marker = idMarker
        while let start = rest.indices.first(where: { rest[$0...].starts(with: marker) }) {
            if let id = pointID(rest[start...]) { ids.append(id) }
            rest = rest[(start + marker.count)...]
        }
        return ids
    }

    private static func number(after marker: [UInt8], in line: ArraySlice<UInt8>) -> Int? {
        guard let start = line.indices.first(where: { line[$0...].starts(with: marker) }) else { return nil }
        var value = 0
        var index = start + marker.count
        while index < line.endIndex, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int(line[index] - UInt8(ascii: "0"))
            index += 1
        }
        return index == start + marker.count ? nil : value
    }

    /// The first invariant that does not hold, nil when all do. Points the recovered
    /// journal holds count as committed from now on.
    static func check(_ journal: Journal, model: inout Simulation.Model) -> Finding? {
        do {
            let verification = try journal.verify()
            if let damage = verification.damaged.first { return Finding(kind: "damage", message: "journal verify: \(damage)") }
            let (seen, problem) = try points(journal)
            if let problem { return problem }
            let end = try journal.endSequence()
            var cursors: [UInt64] = []
            for name in Simulation.destinations {
                let next = try journal.cursor(for: CursorName(name)!)
                if next > end { return Finding(kind: "cursor-past-end", message: "cursor '\(name)' at \(next) is past the journal's end \(end)") }
                cursors.append(next)
                _ = try SyncState.load(journal: journal, destination: name)
            }
            let floor = try journal.cursor()
            if floor > cursors.min()! { return Finding(kind: "floor", message: "the floor \(floor) is past a cursor (\(cursors))") }
            if let problem = lost(seen, cursors: cursors, model: model) { return problem }
            model.committed.formUnion(seen.keys)
            if let problem = resends(model) { return problem }
            return try timeIndex(journal, seen: seen, end: end)
        } catch {
            return Finding(kind: "recovery", message: "after recovery: \(error)")
        }
    }

    /// Every point of the journal by id (its sequence number), or the point seen twice.
    static func points(_ journal: Journal) throws(JournalError) -> ([Int: UInt64], Finding?) {
        var seen: [Int: UInt64] = [:]
        let reader = try journal.records(from: 0)
        while let record = try reader.next() {
            guard let id = pointID(record.line) else { return (seen, Finding(kind: "foreign", message: "record \(record.sequence) is not a point")) }
            if let earlier = seen[id] { return (seen, Finding(kind: "twice", message: "point \(id) is in the journal twice (records \(earlier) and \(record.sequence))")) }
            seen[id] = record.sequence
        }
        return (seen, nil)
    }

    /// A committed point neither unsent nor at a receiver.
    static func lost(_ seen: [Int: UInt64], cursors: [UInt64], model: Simulation.Model) -> Finding? {
        for id in model.committed.sorted() {
            for (index, name) in Simulation.destinations.enumerated() where model.received[index][id] == nil {
                guard let sequence = seen[id] else { return Finding(kind: "lost", message: "point \(id) was committed, is gone from the journal and '\(name)' never got it") }
                if sequence < cursors[index] {
                    return Finding(kind: "forgotten", message: "point \(id) (record \(sequence)) is behind the cursor of '\(name)' (\(cursors[index])) and its receiver never got it")
                }
            }
        }
        return nil
    }

    /// A receiver that got more points twice than the lost acknowledgements, duplicates
    /// and power cuts allow (one batch each).
    static func resends(_ model: Simulation.Model) -> Finding? {
        for (index, name) in Simulation.destinations.enumerated() {
            let twice = model.received[index].values.reduce(0) { $0 + max(0, $1 - 1) }
            let allowed = Simulation.maxBatch * model.resendAllowance[index]
            if twice > allowed { return Finding(kind: "resends", message: "'\(name)' received \(twice) points again, more than the \(allowed) allowed") }
        }
        return nil
    }

    /// The time index, caught up by the real code, holds every point's second.
    static func timeIndex(_ journal: Journal, seen: [Int: UInt64], end: UInt64) throws(JournalError) -> Finding? {
        let index = try journal.timeIndex(key: timeKey)
        if index.through > end { return Finding(kind: "time-index", message: "the time index covers through \(index.through), past the journal's end \(end)") }
        for id in seen.keys.sorted() where !index.contains(device: device, second: Int64(1_800_000_000 + id)) {
            return Finding(kind: "time-index", message: "the time index misses point \(id)")
        }
        return nil
    }
}
