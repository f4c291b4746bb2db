import OverlandProtocol
import OverlandSync
import Synchronization

/// A receiver the sync engine talks to through its `Transport`, answering each request as
/// the step scripted it (stored and acknowledged, acknowledgement lost, reset mid-body,
/// stored twice) and keeping the ids of the points it stored; past the script, it resets
/// (the run ends there).
final class SimulatedReceiver: Transport {
    private struct Script {
        var outcomes: [Step.Delivery]
        var stored: [Int] = []
        var answered: [(outcome: Step.Delivery, records: Int)] = []
    }

    private let script: Mutex<Script>

    /// What another destination of the same run does meanwhile (`Step.engines`), called
    /// at each request before it is answered; the simulation runs on one thread at a time.
    private nonisolated(unsafe) let beside: (() -> Void)?

    init(_ outcomes: [Step.Delivery], beside: (() -> Void)? = nil) {
        script = Mutex(Script(outcomes: outcomes))
        self.beside = beside
    }

    /// The ids of the points stored, once per time stored.
    var stored: [Int] { script.withLock { $0.stored } }

    /// How each request was answered, in turn, and how many records it carried.
    var answered: [(outcome: Step.Delivery, records: Int)] { script.withLock { $0.answered } }

    func send(_ request: SyncRequest, timeout: Duration) async throws -> HTTPReply {
        beside?()
        let ids = Invariants.recordIDs(in: request.body[...])
        let outcome = script.withLock { script in
            let next = script.outcomes.isEmpty ? Step.Delivery.reset : script.outcomes.removeFirst()
            script.answered.append((next, ids.count))
            return next
        }
        switch outcome {
        case .reset:
            throw TransportError(.connectionLost, "connection reset mid-body (simulated)")
        case .ackLost:
            script.withLock { $0.stored += ids }
            throw TransportError(.timedOut, "no reply in time (simulated)")
        case .acknowledged, .duplicated:
            script.withLock { $0.stored += outcome == .duplicated ? ids + ids : ids }
            return HTTPReply(status: 200, headers: [.init("Content-Type", "application/json")], body: Array(#"{"result":"ok"}"#.utf8))
        }
    }
}
