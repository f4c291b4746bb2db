import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `overland-sync` to Debian's mosquitto on 127.0.0.1: OwnTracks location messages at
/// QoS 1, in journal order, once; the cursor moves only past what the broker acknowledged.
@Suite(.serialized) struct MQTTSyncTests {
    /// The default topic for the sandbox's device id `reliability` without a user name.
    static let topic = "owntracks/user/reliability"

    func brokerURL(_ broker: MosquittoBroker, tls: Bool = false) -> String {
        "\(tls ? "mqtts" : "mqtt")://127.0.0.1:\(broker.port)"
    }

    @Test func everyPointArrivesOnceInOrder() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt")
        try sandbox.logEpochs(0..<300)
        let broker = try MosquittoBroker(directory: sandbox.directory.path)
        let subscriber = try LiveSubscriber(broker: broker, root: "owntracks")

        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", brokerURL(broker), "--now"])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrText.isEmpty, "\(result.stderrText)")
        let payloads = subscriber.collect(on: Self.topic, count: 300)
        try #require(payloads.count == 300, "\(payloads.count) messages")
        let messages = payloads.compactMap(ownTracksMessage)
        try #require(messages.count == 300)
        let times = messages.compactMap { $0["tst"] as? Int64 ?? ($0["tst"] as? NSNumber)?.int64Value }
        #expect(times == (0..<300).map { SyntheticDrive.time($0) })
        let first = try #require(messages.first)
        #expect(first["_type"] as? String == "location")
        #expect(first["topic"] as? String == Self.topic)
        #expect(first["lat"] is NSNumber && first["lon"] is NSNumber)
        #expect(try sandbox.cursor() == 300)

        // Nothing waits: a second run publishes nothing (anything it had published, the
        // broker took before the run ended, so before the marker).
        let again = try sandbox.sync.run(["--journal", sandbox.journal, "--url", brokerURL(broker), "--now"])
        #expect(again.succeeded, "\(again)")
        try subscriber.catchUp()
        #expect(subscriber.payloads(on: Self.topic).count == 300)
    }

    @Test func brokerKilledMidDrainLosesNothing() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-kill")
        let total = 30_000
        try sandbox.logEpochs(0..<total)
        let logged = try sandbox.records().records.count
        try #require(logged > 25_000)
        let broker = try MosquittoBroker(directory: sandbox.directory.path)
        let subscriber = try LiveSubscriber(broker: broker, root: "owntracks")

        // The broker is killed mid-drain. The sync pauses itself (SIGSTOP) when it records
        // its cursor for the 20th time (OVERLAND_FAULT_POINT=cursor.recorded:20:stop: at
        // most 20 windows of 100 in, so thousands of points wait whatever the machine's
        // speed), until the subscriber has every message the
        // broker took: a broker without persistence loses, when killed, what it acknowledged
        // and had not yet passed on, and that loss is the broker's, not the sender's. The
        // PUBACKs of that moment wait in the paused sync's socket; it reads them when it
        // goes on (SIGCONT), then finds the connection gone.
        let run = try sandbox.sync.start(["--journal", sandbox.journal, "--url", brokerURL(broker), "--now"],
                                         environment: ["OVERLAND_FAULT_POINT": "cursor.recorded:20:stop"])
        try #require(waitUntil { !run.isRunning || run.isStopped }, "\(run.stderrSoFar)")
        // Paused, the sync sends nothing more; once the broker has read all it sent (the
        // sockets' queues are empty), a marker published after is passed on after all of it.
        try #require(waitUntil { !run.isRunning || (run.isStopped && run.unreadTCPBytes() == 0) }, "the broker never read what the sync sent")
        try subscriber.catchUp()
        broker.kill()
        run.kill(SIGCONT)
        let first = run.wait()
        let cursorAfterKill = try sandbox.cursor()
        try #require(cursorAfterKill < UInt64(logged), "the drain ended before the kill: make the journal longer")
        first.expectExit(75)
        #expect(first.stderrLines.count == 1, "\(first.stderrText)")
        #expect(first.stderrText.contains("connection lost") || first.stderrText.contains("cannot connect"), "\(first.stderrText)")
        let arrivedBeforeKill = subscriber.payloads(on: Self.topic).count

        try broker.start()
        try subscriber.catchUp()
        let second = try sandbox.sync.run(["--journal", sandbox.journal, "--url", brokerURL(broker), "--now"])
        #expect(second.succeeded, "\(second)")
        #expect(try sandbox.cursor() == UInt64(logged))
        let expectedTotal = arrivedBeforeKill + (logged - Int(cursorAfterKill))
        let payloads = subscriber.collect(on: Self.topic, count: expectedTotal)
        let times = payloads.compactMap(ownTracksMessage).compactMap { ($0["tst"] as? NSNumber)?.int64Value }
        try #require(times.count == payloads.count)
        // Nothing lost: every point arrived.
        let journalTimes = Set(try sandbox.records().records.compactMap { record -> Int64? in
            guard let object = ownTracksMessage(record.line), let properties = object["properties"] as? [String: Any],
                  let stamp = properties["timestamp"] as? String else { return nil }
            return ISO8601DateFormatter().date(from: stamp).map { Int64($0.timeIntervalSince1970) }
        })
        let missing = journalTimes.subtracting(times).count
        #expect(missing == 0, "\(missing) points never arrived")
        // Duplicates: at most the in-flight window (100).
        let duplicates = times.count - Set(times).count
        #expect(duplicates <= 100, "\(duplicates) duplicates")
        // What was resent came in order, from the cursor on.
        let resent = Array(times.dropFirst(arrivedBeforeKill))
        #expect(resent == resent.sorted(), "resent points out of order")
    }

    @Test func privateCAWithCAFileAndRefusedWithSystemCAs() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-tls")
        try sandbox.logEpochs(0..<20)
        let ca = try PrivateCA(directory: sandbox.directory.path)
        let broker = try MosquittoBroker(directory: sandbox.directory.path, tls: (ca.certificate, ca.key))

        let refused = try sandbox.sync.run(["--journal", sandbox.journal, "--url", brokerURL(broker, tls: true), "--now"])
        refused.expectExit(75)
        #expect(refused.stderrLines.count == 1, "\(refused.stderrText)")
        #expect(refused.stderrText.contains("tls with 127.0.0.1:\(broker.port) failed: its certificate is not trusted"), "\(refused.stderrText)")
        #expect(try sandbox.cursor() == 0)

        let trusted = try sandbox.sync.run(["--journal", sandbox.journal, "--url", brokerURL(broker, tls: true), "--ca-file", ca.caFile, "--now"])
        #expect(trusted.succeeded, "\(trusted)")
        #expect(try sandbox.cursor() == 20)
    }

    @Test func wrongPasswordIsRefused() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-auth")
        try sandbox.logEpochs(0..<5)
        let broker = try MosquittoBroker(directory: sandbox.directory.path, users: ["alice": "right-password"])

        try sandbox.writeSettings(#"{"token": "alice:wrong-password"}"#)
        let refused = try sandbox.sync.run(["--journal", sandbox.journal, "--url", brokerURL(broker), "--now"])
        refused.expectExit(77)
        #expect(refused.stderrLines.count == 1, "\(refused.stderrText)")
        #expect(refused.stderrText.contains("not authorized") || refused.stderrText.contains("bad user name or password"), "\(refused.stderrText)")
        #expect(!refused.stderrText.contains("wrong-password"))
        #expect(try sandbox.cursor() == 0)

        try sandbox.writeSettings(#"{"token": "alice:right-password"}"#)
        let accepted = try sandbox.sync.run(["--journal", sandbox.journal, "--url", brokerURL(broker), "--now"])
        #expect(accepted.succeeded, "\(accepted)")
        #expect(try sandbox.cursor() == 5)
    }

    @Test func nothingListeningIsTryLaterQuickly() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-refused")
        try sandbox.logEpochs(0..<5)
        let port = RefusingPort.reserve()
        // Said as a refusal, not as a connect timeout (no wall-clock bound: a loaded machine
        // takes seconds just to start the process).
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", "mqtt://127.0.0.1:\(port)", "--now"])
        #expect(!result.timedOut, "\(result)")
        result.expectExit(75)
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        #expect(result.stderrText.contains("cannot connect to 127.0.0.1:\(port): connection refused"), "\(result.stderrText)")
        #expect(try sandbox.cursor() == 0)
    }

    @Test(arguments: ["mqtt://127.0.0.1:99999", "mqtt://", "mqtt://:1883", "ws://127.0.0.1:1883", "mqtt://127.0.0.1:1883/owntracks/x",
                      "mqtt://user:pass@127.0.0.1"])
    func badURLIsAConfigurationError(url: String) throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-url")
        try sandbox.logEpochs(0..<3)
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", url, "--now"])
        if url.hasPrefix("ws:") {
            // Not a broker url: the HTTP sync refuses it as an endpoint.
            result.expectExit(78)
            return
        }
        result.expectExit(78)
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        #expect(!result.stderrText.contains("pass@"), "\(result.stderrText)")
        #expect(try sandbox.cursor() == 0)
    }

    @Test func aBrokerThatNeverAnswersIsBounded() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-silent")
        try sandbox.logEpochs(0..<3)
        // A port that listens and never answers: the TCP handshake completes, no CONNACK comes.
        let port = SilentPort.reserve()
        let started = ContinuousClock.now
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", "mqtt://127.0.0.1:\(port)", "--now"])
        let took = ContinuousClock.now - started
        // Bounded: it ended by itself (not at the hang guard), after the 10 s it allows for
        // the CONNACK. A lower bound only: load makes a run longer, never shorter.
        #expect(!result.timedOut, "\(result)")
        #expect(took >= .seconds(10), "\(took)")
        result.expectExit(75)
        #expect(result.stderrText.contains("cannot connect to 127.0.0.1:\(port): no connack within 10 s"), "\(result.stderrText)")
        #expect(try sandbox.cursor() == 0)
    }

    @Test func latestModePublishesTheNewestPointRetained() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-latest")
        try sandbox.logEpochs(0..<50)
        try sandbox.writeSettings(#"{"main": {"logging_mode": "latest"}}"#)
        let broker = try MosquittoBroker(directory: sandbox.directory.path)
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", brokerURL(broker), "--now"])
        #expect(result.succeeded, "\(result)")
        #expect(try sandbox.cursor() == 50)
        // A subscriber that comes later gets it: retained ("1" first).
        let line = try #require(try broker.retained(Self.topic))
        #expect(line.hasPrefix("1 \(Self.topic) "), "\(line)")
        let message = try #require(ownTracksMessage(String(line.dropFirst("1 \(Self.topic) ".count))))
        #expect((message["tst"] as? NSNumber)?.int64Value == SyntheticDrive.time(49))
    }

    @Test func reportLocationAndSetConfigurationFromTheCommandTopic() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-cmd")
        try sandbox.logEpochs(0..<10)
        let broker = try MosquittoBroker(directory: sandbox.directory.path)
        // setConfiguration is obeyed only where the user allowed it: commands all.
        for arguments in [["destination", "add", "home", brokerURL(broker), "--protocol", "mqtt", "--from-start", "--journal", sandbox.journal],
                          ["destination", "set", "home", "commands", "all"],
                          ["destination", "set", "home", "send_interval", "30m"]] {
            let done = try sandbox.overland.run(arguments)
            try #require(done.succeeded, "\(arguments): \(done)")
        }
        let subscriber = try LiveSubscriber(broker: broker, root: "owntracks")
        let watch = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--now"])
        defer { watch.kill(); _ = watch.wait() }
        // The drain shows the command subscription is in place (subscribed before it).
        try #require(subscriber.collect(on: Self.topic, count: 10).count == 10)

        try broker.publish(["-q", "1", "-t", Self.topic + "/cmd", "-m", #"{"_type":"cmd","action":"reportLocation"}"#])
        let reported = subscriber.collect(on: Self.topic, count: 11)
        try #require(reported.count == 11, "\(watch.stderrSoFar)")
        let answer = try #require(ownTracksMessage(reported[10]))
        #expect(answer["t"] as? String == "r")
        #expect((answer["tst"] as? NSNumber)?.int64Value == SyntheticDrive.time(9))

        let configuration = #"{"_type":"cmd","action":"setConfiguration","configuration":{"_type":"configuration","#
            + #""locatorInterval":30,"endpoint":"http://attacker.example/","token":"stolen","noSuchKey":1}}"#
        try broker.publish(["-q", "1", "-t", Self.topic + "/cmd", "-m", configuration])
        // The warnings follow the saved file: the event to wait for.
        #expect(watch.waitForStderr(containing: "noSuchKey"), "\(watch.stderrSoFar)")
        let settings = (try? String(contentsOfFile: sandbox.settingsPath, encoding: .utf8)) ?? ""
        #expect(settings.contains("\"min_time\""), "\(settings)")
        #expect(!settings.contains("attacker"))
        #expect(!settings.contains("stolen"))
        watch.kill(SIGTERM)
        let stderr = watch.wait().stderrText
        #expect(stderr.contains("noSuchKey"), "\(stderr)")
        // Each line names setConfiguration once (it printed "setConfiguration: setConfiguration:").
        #expect(stderr.contains("overland-sync: home: setConfiguration: unknown key \"noSuchKey\" ignored"), "\(stderr)")
        #expect(!stderr.contains("setConfiguration: setConfiguration"), "\(stderr)")
        #expect(stderr.contains("endpoint"), "\(stderr)")
    }

    /// The user's flow: `overland destination add ... --protocol mqtt`, its keys, one run.
    @Test func aDestinationWithCredentialsTopicAndDiscovery() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-destination")
        try sandbox.logEpochs(0..<20)
        let broker = try MosquittoBroker(directory: sandbox.directory.path, users: ["alice": "broker-password"])
        let user = ("alice", "broker-password")
        let overland = sandbox.overland
        for arguments in [["destination", "add", "home", "mqtt://127.0.0.1:\(broker.port)", "--protocol", "mqtt", "--from-start"],
                          ["destination", "set", "home", "username", "alice"],
                          ["destination", "set", "home", "topic", "owntracks/alice/van"],
                          ["destination", "set", "home", "discovery", "true"]] {
            let done = try overland.run(arguments)
            try #require(done.succeeded, "\(arguments): \(done)")
        }
        let token = try overland.run(["destination", "set", "home", "token", "--stdin"], stdinText: "broker-password\n")
        try #require(token.succeeded, "\(token)")
        let subscriber = try LiveSubscriber(broker: broker, root: "owntracks", user: user)

        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        #expect(result.succeeded, "\(result)")
        #expect(!result.stderrText.contains("broker-password"))
        let payloads = subscriber.collect(on: "owntracks/alice/van", count: 20)
        #expect(payloads.count == 20)
        let first = try #require(payloads.first.flatMap(ownTracksMessage))
        #expect(first["topic"] as? String == "owntracks/alice/van")
        #expect(first["_type"] as? String == "location")

        // Home Assistant's discovery config, retained, read from the device topic.
        let line = try #require(try broker.retained("homeassistant/device_tracker/owntracks_alice_van/config", user: user))
        let prefix = "1 homeassistant/device_tracker/owntracks_alice_van/config "
        #expect(line.hasPrefix(prefix), "\(line)")
        let discovery = try #require(ownTracksMessage(String(line.dropFirst(prefix.count))))
        #expect(discovery["json_attributes_topic"] as? String == "owntracks/alice/van")
        #expect(discovery["source_type"] as? String == "gps")
        #expect(discovery["unique_id"] as? String == "overland_owntracks_alice_van")
        // The device id is this sandbox's ('reliability'): the name is its device part.
        #expect(discovery["name"] as? String == "reliability")
        #expect((discovery["device"] as? [String: Any])?["identifiers"] is [String])

        // A topic with a wildcard is refused when set; the destination keeps working.
        let bad = try overland.run(["destination", "set", "home", "topic", "owntracks/+/van"])
        bad.expectExit(64)
        #expect(bad.stderrLines.count == 1, "\(bad.stderrText)")
    }
}
