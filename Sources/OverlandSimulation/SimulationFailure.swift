/// A violation found during a step (not after a cut): its kind and what happened.
struct SimulationFailure: Error, CustomStringConvertible {
    let kind: String
    let message: String
    var description: String { "[\(kind)] \(message)" }
}
