import OverlandJSON
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
    struct Finding: Equatable {
        let kind: String
        let message: String
    }

    static let device: [UInt8] = Array("sim".utf8)

    /// What starts a point and its id: an opening brace (0x7B), then `"i":`.
    static let idMarker: [UInt8] = [0x7B] + Array(#""i":"#.utf8)

    /// What starts a trip record's start time (`TripRecord.jsonLine`): its properties'
    /// type and mode, then `"start":"`.
    static let tripMarker: [UInt8] = Array(#""properties":{"type":"trip","mode":"#.utf8)
    static let tripStartMarker: [UInt8] = Array(#","start":""#.utf8)

    /// A point's id: the digits after `idMarker`.
    static func pointID(_ line: ArraySlice<UInt8>) -> Int? {
        number(after: idMarker, in: line)
    }

    /// A trip's id: minus its start (Unix seconds), so that trips and points share one
    /// space of ids (the workload starts at most one trip a second).
    static func tripID(start: Int64) -> Int { -Int(start) }

    /// The id of a record: a point's, or a trip record's (`tripID`); nil for anything else.
    static func recordID(_ line: ArraySlice<UInt8>) -> Int? {
        pointID(line) ?? tripRecordID(line)
    }

    /// The id of the first trip record in `bytes` (`tripID`), nil when there is none.
    static func tripRecordID(_ line: ArraySlice<UInt8>) -> Int? {
        guard let trip = line.firstRange(of: tripMarker),
              let start = line[trip.upperBound...].firstRange(of: tripStartMarker) else { return nil }
        let text = line[start.upperBound...].prefix { $0 != UInt8(ascii: "\"") }
        return ISO8601UTC.parse(text).map(tripID(start:))
    }

    /// The time index's key of a point: its second, one device.
    static func timeKey(_ line: ArraySlice<UInt8>) -> (second: Int64, device: ArraySlice<UInt8>)? {
        guard let second = number(after: Array(#","s":"#.utf8), in: line) else { return nil }
        return (Int64(second), device[...])
    }

    /// Every point and trip id in a request body, in order.
    static func recordIDs(in body: ArraySlice<UInt8>) -> [Int] {
        var ids: [Int] = []
        var rest = body
        while let start = rest.indices.first(where: { rest[$0...].starts(with: idMarker) || rest[$0...].starts(with: tripMarker) }) {
            let id = rest[start...].starts(with: idMarker) ? pointID(rest[start...]) : tripRecordID(rest[start...])
            if let id { ids.append(id) }
            rest = rest[(start + 1)...]
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
    /// journal holds count as committed from now on. `target` is the stick's journal, once
    /// a move made it (`Invariants+Move`).
    /// `live`: checked on a running process's state (after a fault it survived), not a
    /// recovered one: what it shows may not be durable yet, so nothing seen is counted as
    /// committed, and damage is left to the recovery after the next cut.
    static func check(_ journal: Journal, target: Journal?, model: inout Simulation.Model, live: Bool = false) -> Finding? {
        do {
            let verification = try journal.verify()
            // A running process may hold a torn tail a failed write left (its truncate back
            // failed too) until its next commit or recovery deals with it.
            if !live, let damage = verification.damaged.first { return Finding(kind: "damage", message: "journal verify: \(damage)") }
            let (seen, problem) = try points(journal, allowedTwice: model.writtenTwice)
            if let problem { return problem }
            // The end the journal reached: records moved away or removed by retention leave
            // it shorter, and an appender continues at the highest cursor (section 9).
            model.highestEnd = max(model.highestEnd, try journal.endSequence())
            let end = model.highestEnd
            var cursors: [UInt64] = []
            for name in Simulation.destinations {
                let next = try journal.cursor(for: CursorName(name)!)
                if next > end { return Finding(kind: "cursor-past-end", message: "cursor '\(name)' at \(next) is past the end the journal reached, \(end)") }
                cursors.append(next)
                _ = try SyncState.load(journal: journal, destination: name)
            }
            let floor = try journal.cursor()
            if floor > cursors.min()! { return Finding(kind: "floor", message: "the floor \(floor) is past a cursor (\(cursors))") }
            let (stick, stickProblem) = try Self.stick(target, allowedTwice: model.writtenTwice)
            if let problem = stickProblem ?? observe(stick, model: &model) { return problem }
            if try journal.pendingMove() == nil,
               let problem = sendableFromBoth(seen, cursors: cursors, stick: stick, model: model) { return problem }
            if let problem = lost(seen, cursors: cursors, stick: stick, model: model) { return problem }
            if let problem = try trips(journal, seen: seen, stick: stick, model: &model, live: live) { return problem }
            if !live { model.committed.formUnion(seen.keys) }
            if let problem = resends(model) { return problem }
            return try timeIndex(journal, seen: seen, end: end)
        } catch {
            return Finding(kind: "recovery", message: "after recovery: \(error)")
        }
    }

    /// A point or trip for a message.
    static func describe(_ id: Int) -> String {
        id < 0 ? "the record of the trip started at \(-id)" : "point \(id)"
    }

    /// Every point and trip record of the journal by id (its sequence number), or the one
    /// seen twice (but those of `allowedTwice`).
    static func points(_ journal: Journal, allowedTwice: Set<Int>) throws(JournalError) -> ([Int: UInt64], Finding?) {
        var seen: [Int: UInt64] = [:]
        let reader = try journal.records(from: 0)
        while let record = try reader.next() {
            guard let id = recordID(record.line) else { return (seen, Finding(kind: "foreign", message: "record \(record.sequence) of \(journal.path) is neither a point nor a trip")) }
            if let earlier = seen[id], !allowedTwice.contains(id) { return (seen, Finding(kind: "twice", message: "\(describe(id)) is in \(journal.path) twice (records \(earlier) and \(record.sequence))")) }
            seen[id] = record.sequence
        }
        return (seen, nil)
    }

    /// A committed point or trip record neither unsent nor at a receiver, for a destination
    /// of the journal: unsent there (at or past its cursor), or on the stick (unsent there
    /// or at the stick's receiver), or at its receiver.
    static func lost(_ seen: [Int: UInt64], cursors: [UInt64], stick: Stick, model: Simulation.Model) -> Finding? {
        let stickReceived = model.received[Simulation.stick]
        for id in model.committed.sorted() {
            for (index, name) in Simulation.destinations.enumerated() where model.received[index][id] == nil {
                if let sequence = seen[id], sequence >= cursors[index] { continue }
                if let sequence = stick.seen[id] {
                    if sequence >= stick.cursor || stickReceived[id] != nil { continue }
                    return Finding(kind: "forgotten", message: "\(describe(id)) (record \(sequence) on the stick) is behind the stick's cursor (\(stick.cursor)) and neither '\(name)' nor the stick's receiver got it")
                }
                if stickReceived[id] != nil { continue }
                guard let sequence = seen[id] else {
                    return Finding(kind: "lost", message: "\(describe(id)) was committed, is gone from the journal and the stick, and neither '\(name)' nor the stick's receiver got it")
                }
                return Finding(kind: "forgotten", message: "\(describe(id)) (record \(sequence)) is behind the cursor of '\(name)' (\(cursors[index])), is not on the stick and its receiver never got it")
            }
        }
        return nil
    }

    /// A receiver that got more records again than the lost acknowledgements, duplicates,
    /// power cuts and lowered cursors allow (`Model.resendAllowance`: the records each caused).
    static func resends(_ model: Simulation.Model) -> Finding? {
        for (index, name) in Simulation.receivers.enumerated() {
            let twice = model.received[index].values.reduce(0) { $0 + max(0, $1 - 1) }
            let allowed = model.resendAllowance[index]
            if twice > allowed { return Finding(kind: "resends", message: "'\(name)' received \(twice) points again, more than the \(allowed) allowed") }
        }
        return nil
    }

    /// The time index, caught up by the real code, holds every point's second.
    static func timeIndex(_ journal: Journal, seen: [Int: UInt64], end: UInt64) throws(JournalError) -> Finding? {
        let index = try journal.timeIndex(key: timeKey)
        if index.through > end { return Finding(kind: "time-index", message: "the time index covers through \(index.through), past the end the journal reached, \(end)") }
        for id in seen.keys.sorted() where id > 0 && !index.contains(device: device, second: Int64(1_800_000_000 + id)) {
            return Finding(kind: "time-index", message: "the time index misses point \(id)")
        }
        return nil
    }
}
