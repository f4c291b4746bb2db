import TestSupport
import Foundation
import OverlandJournal
import OverlandMQTT
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the MQTT client must hold against a hostile broker and outsiders (issue 34):
/// memory bounded whatever arrives, a PUBACK counted only for a packet in flight, a broker
/// that hangs up after the CONNACK met with the backoff, one TCP connection per `--watch`,
/// and a flood of reportLocation that neither stalls delivery nor is answered more than
/// once a second.
@Suite(.serialized) struct MQTTHostileBrokerTests {
    static let topic = MQTTCommandTests.topic

    func sandbox(_ prefix: String, points: Int = 5, port: Int, keys: [(String, String)] = []) throws -> ReliabilitySandbox {
        try MQTTCommandTests().sandbox(prefix, points: points, port: port, keys: keys)
    }

    @Test("200 MB of messages nobody subscribed to cost a one-shot sync no memory")
    func unsolicitedMessagesAreDropped() throws {
        // 2,000 messages of 100 KB on a topic the run never subscribed to, no PUBACK meanwhile.
        let broker = try FakeMQTTBroker(greeting: FakeMQTTBroker.unsolicited(topic: "owntracks/other/one", count: 2000, size: 100_000))
        let sandbox = try sandbox("overland-mqtt-unsolicited", port: broker.port)
        let (_, floor) = try HostileMeasure.peakRSS(sandbox.sync, ["--help"])
        let (result, peak) = try HostileMeasure.peakRSS(sandbox.sync, ["--journal", sandbox.journal, "--now"])
        // The broker hangs up after them: the points wait for the next run.
        result.expectExit(75)
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        #expect(peak > 0 && peak < floor + (24 << 20), "peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        #expect(try DestinationCommandTests.cursor(sandbox, "home") == 0)
        print("mqtt: 200 MB of unsolicited messages: peak RSS \(peak >> 20) MiB (floor \(floor >> 20) MiB)")
    }

    @Test("PUBACKs for packet ids never sent are a protocol error (75): nothing advances")
    func acknowledgementsNotInFlightAreRefused() throws {
        // With the CONNACK, PUBACKs for ids 1 to 300, before any PUBLISH; then it reads nothing.
        let acknowledgements = (1...300).flatMap { id in [0x40, 0x02, UInt8(id >> 8), UInt8(id & 0xFF)] as [UInt8] }
        let broker = try FakeMQTTBroker(afterConnack: acknowledgements, greeting: FakeMQTTBroker.deaf)
        let sandbox = try sandbox("overland-mqtt-stray-puback", points: 300, port: broker.port)
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        result.expectExit(75)
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        #expect(result.stderrText.contains("acknowledged packet id 1, which is not in flight: a protocol error"), "\(result.stderrText)")
        #expect(try DestinationCommandTests.cursor(sandbox, "home") == 0)
    }

    @Test("a broker that holds its PUBACKs under Nagle's algorithm (mosquitto's default) is never left waiting for the client's delayed ACK mid-drain")
    func nagleBrokerIsNeverLeftWaiting() throws {
        // Each PUBACK the broker holds is released only by a PUBLISH the sync sent after
        // reading the one before (the broker's model has no delayed-ACK timer, which on Linux
        // fires after 40 ms): a window refilled only every half window waits for ever, and
        // the request timeout ends the run with the points undelivered; one that slides
        // delivers all 2,000, whatever the machine's speed.
        let broker = try FakeMQTTBroker(nagle: .init(window: MQTTClientOptions.defaultInFlightWindow, publishes: 2000))
        let sandbox = try sandbox("overland-mqtt-nagle", points: 2000, port: broker.port)
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        #expect(result.succeeded, "\(result)")
        #expect(try DestinationCommandTests.cursor(sandbox, "home") == 2000)
    }

    @Test("--watch against a broker that hangs up after the CONNACK backs off: no new connection while it holds")
    func hangUpAfterConnackBacksOff() throws {
        let broker = try FakeMQTTBroker(greeting: FakeMQTTBroker.hangUp)
        let sandbox = try sandbox("overland-mqtt-hangup", port: broker.port, keys: [("send_interval", "1s")])
        // The sync's wall clock stands still (OVERLAND_TEST_NOW): the backoff after the
        // hang-up cannot run out however slowly the passes come.
        let watch = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--verbose"],
                                           environment: ["OVERLAND_TEST_NOW": String(Int(Date().timeIntervalSince1970))])
        defer { watch.kill(); _ = watch.wait() }
        // Three passes held by the backoff, one second apart.
        #expect(watch.waitForStderr(containing: "backing off", count: 3), "\(watch.stderrSoFar)")
        #expect(broker.connections == 1, "\(broker.connections) connections: \(watch.stderrSoFar)")
        #expect(try DestinationCommandTests.cursor(sandbox, "home") == 0)
    }

    @Test("--watch holds one TCP connection, to the broker, and no other socket")
    func watchHoldsOneConnection() throws {
        let directory = try TemporaryDirectory(prefix: "overland-mqtt-sockets-broker")
        let broker = try MosquittoBroker(directory: directory.path)
        let sandbox = try sandbox("overland-mqtt-sockets", port: broker.port)
        let subscriber = try LiveSubscriber(broker: broker, root: "owntracks", topics: [Self.topic])
        let watch = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--now"])
        defer { watch.kill(); _ = watch.wait() }
        try #require(subscriber.collect(on: Self.topic, count: 5).count == 5, "\(watch.stderrSoFar)")
        // Connected (a loaded machine may see it between a lost connection and the next).
        var sockets: [TCPTable] = []
        let deadline = ContinuousClock.now + ToolRunner.hangGuard
        repeat {
            sockets = try #require(watch.tcpSockets())
            if sockets.isEmpty { usleep(20_000) }
        } while sockets.isEmpty && ContinuousClock.now < deadline
        let brokerPort = String(format: ":%04X", broker.port)
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(watch.pid)/fd")) ?? []
        #expect(sockets.count == 1, "\(sockets) \(descriptors.map { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(watch.pid)/fd/\($0)")) ?? "" })")
        #expect(sockets.allSatisfy { $0.remote.hasSuffix(brokerPort) }, "\(sockets)")
    }

    @Test("a flood of outsiders' reportLocation neither stalls delivery nor is answered more than once a second")
    func reportLocationFloodIsAnsweredOnceASecond() throws {
        let directory = try TemporaryDirectory(prefix: "overland-mqtt-flood-broker")
        let broker = try MosquittoBroker(directory: directory.path)
        let sandbox = try sandbox("overland-mqtt-flood", port: broker.port, keys: [("send_interval", "1s")])
        let subscriber = try LiveSubscriber(broker: broker, root: "owntracks", topics: [Self.topic])
        let watch = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--now"])
        defer { watch.kill(); _ = watch.wait() }
        try #require(subscriber.collect(on: Self.topic, count: 5).count == 5, "\(watch.stderrSoFar)")

        let started = ContinuousClock.now
        let request = #"{"_type":"cmd","action":"reportLocation"}"#
        let flood = Array(repeating: request, count: 3000).joined(separator: "\n") + "\n"
        let published = try ToolRunner(executable: "/usr/bin/mosquitto_pub")
            .run(["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t", Self.topic + "/cmd", "-l"], stdin: Array(flood.utf8))
        try #require(published.succeeded, "\(published)")
        // Points logged during the flood are delivered by the next passes, PUBACKs and all.
        try sandbox.logEpochs(5..<10)
        func points() -> [[String: Any]] { subscriber.payloads(on: Self.topic).compactMap(ownTracksMessage) }
        // Until the ten points and the first answer: the answer may come after the points.
        subscriber.collect {
            let seen = points()
            return seen.filter { $0["t"] as? String != "r" }.count >= 10 && seen.contains { $0["t"] as? String == "r" }
        }
        let took = ContinuousClock.now - started
        #expect(points().filter { $0["t"] as? String != "r" }.count == 10, "\(watch.stderrSoFar.suffix(2000))")
        #expect(!watch.stderrSoFar.contains("no puback"), "\(watch.stderrSoFar.suffix(2000))")
        // One answer a second at most (an upper bound: a slow machine only lowers the count).
        let answers = points().filter { $0["t"] as? String == "r" }.count
        #expect(answers >= 1 && answers <= Int(took.components.seconds) + 2, "\(answers) answers in \(took)")
        print("mqtt: 3,000 reportLocation: \(answers) answers in \(took)")
    }
}
