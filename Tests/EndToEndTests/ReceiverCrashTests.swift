import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A receiver of one point per request (Traccar) has its cursor replaced after every
/// reply (made durable at most once a second, `DurabilityPacer`): `overland-sync` killed
/// with SIGKILL right after a reply loses nothing, and the next run resends only the one
/// point in flight, in journal order.
@Suite struct ReceiverCrashTests {
    @Test func traccarKilledAfterAReplyResendsOnlyThePointInFlight() throws {
        let points = 300
        let sandbox = try ReliabilitySandbox(prefix: "overland-traccar-crash")
        try sandbox.logEpochs(0..<points)
        try sandbox.writeSettings(#"{"protocol": "traccar", "device_id": "van"}"#)
        let server = try LocalServer { _, _ in LocalServer.text(200, "") }
        defer { server.stop() }
        let arguments = ["--journal", sandbox.journal, "--url", server.url, "--now"]

        let killed = try sandbox.sync.run(arguments, environment: ["OVERLAND_FAULT_POINT": "sync.after-reply:150"])
        #expect(killed.termination == .signaled(SIGKILL), "\(killed)")
        let cursor = try sandbox.cursor()
        #expect(cursor == 149, "the 149th reply is written, the 150th not: cursor \(cursor)")
        #expect(server.requests.count == 150)

        let finished = try sandbox.sync.run(arguments)
        #expect(finished.succeeded, "\(finished)")
        #expect(try sandbox.cursor() == UInt64(points))
        let times = server.requests.compactMap { request -> String? in
            let root = (try? JSONScan.object(request.body))
            return (root?["location"] as? [String: Any])?["timestamp"] as? String
        }
        #expect(times.count == server.requests.count)
        #expect(Set(times).count == points, "every point reached the server")
        #expect(times.count - points == 1, "the only repeat is the point in flight")
        let resumed = Array(times[150...])
        #expect(resumed == resumed.sorted(), "the second run sends in journal order")
    }
}
