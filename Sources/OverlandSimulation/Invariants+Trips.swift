import OverlandJournal
import OverlandRecorder

extension Invariants {
    /// A trip whose start returned is never lost: until a stop commits its record
    /// (invariant 1 protects it from then on), it is still the active trip, or its record
    /// is somewhere (in either journal, or at a receiver: a stop cut short after its
    /// commit). A trip cleared before its record is durable fails here.
    static func trips(_ journal: Journal, seen: [Int: UInt64], stick: Stick, model: inout Simulation.Model,
                      live: Bool = false) throws -> Finding? {
        let active = try Trip.active(in: journal).map { tripID(start: $0.start) }
        for id in model.startedTrips.sorted() where !model.committed.contains(id) {
            if seen[id] != nil || stick.seen[id] != nil || model.received.contains(where: { $0[id] != nil }) {
                if !live { model.startedTrips.remove(id) }
                continue
            }
            if id == active { continue }
            return Finding(kind: "trip-lost", message: "the trip started at \(-id) is neither active nor recorded anywhere, though its start returned")
        }
        return nil
    }
}
