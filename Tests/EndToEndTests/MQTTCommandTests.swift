import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `overland-sync` against brokers that send too much, refuse the command topic or hold
/// commands for later; `commands`, `pub_retain` and discovery names; tracking turned off
/// from afar, said out loud (issues 21 and 22). Real mosquitto on 127.0.0.1, or a fake
/// broker (`FakeMQTTBroker`) for what mosquitto never does.
@Suite(.serialized) struct MQTTCommandTests {
    static let topic = "owntracks/user/reliability"

    /// A sandbox with `count` points and an mqtt destination `home` on `port` (`keys` set after).
    func sandbox(_ prefix: String, points count: Int = 5, port: Int, scheme: String = "mqtt",
                 keys: [(String, String)] = []) throws -> ReliabilitySandbox {
        let sandbox = try ReliabilitySandbox(prefix: prefix)
        try sandbox.logEpochs(0..<count)
        let added = try sandbox.overland.run(["destination", "add", "home", "\(scheme)://127.0.0.1:\(port)", "--protocol", "mqtt",
                                              "--from-start", "--journal", sandbox.journal])
        try #require(added.succeeded, "\(added)")
        for (key, value) in keys {
            let set = try sandbox.overland.run(["destination", "set", "home", key, value])
            try #require(set.succeeded, "\(key) \(value): \(set)")
        }
        return sandbox
    }

    /// The peak resident set of a running process (VmHWM), in bytes.
    static func peakRSS(of pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
    }

    // MARK: - Issue 21: a message too large for memory

    @Test("a broker announcing a 268,435,455-byte PUBLISH costs the sync no memory for it")
    func hugeAnnouncedPublishIsNeverHeld() throws {
        let broker = try FakeMQTTBroker(greeting: FakeMQTTBroker.hugePublish(topic: Self.topic + "/cmd", streamed: 96 << 20))
        let sandbox = try sandbox("overland-mqtt-huge", port: broker.port)
        let (_, floor) = try HostileMeasure.peakRSS(sandbox.sync, ["--help"])
        let (result, peak) = try HostileMeasure.peakRSS(sandbox.sync, ["--journal", sandbox.journal, "--now"])
        // The broker closes after 96 MiB: the run is one to try again.
        result.expectExit(75)
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        #expect(peak > 0 && peak < floor + (24 << 20), "peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        print("mqtt: 96 MiB of a 268,435,455-byte publish: peak RSS \(peak >> 20) MiB (floor \(floor >> 20) MiB)")
    }

    @Test("a 40 MB message on TOPIC/cmd from mosquitto is dropped unread; the watch goes on answering")
    func largeCommandFromMosquittoIsDropped() throws {
        let directory = try TemporaryDirectory(prefix: "overland-mqtt-bigcmd-broker")
        let broker = try MosquittoBroker(directory: directory.path)
        let sandbox = try sandbox("overland-mqtt-bigcmd", port: broker.port)
        let (_, floor) = try HostileMeasure.peakRSS(sandbox.sync, ["--help"])
        // A subscriber to the locations only: on TOPIC/# it would have to read the 40 MB message too.
        let subscriber = try LiveSubscriber(broker: broker, root: "owntracks", topics: [Self.topic])
        let watch = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--now"])
        defer { watch.kill(); _ = watch.wait() }
        // The five points delivered show the drain done (it subscribed to TOPIC/cmd first).
        try #require(subscriber.collect(on: Self.topic, count: 5).count == 5, "\(watch.stderrSoFar)")

        let big = sandbox.directory.appending("big-command")
        try Data(repeating: 0x20, count: 40_000_000).write(to: URL(fileURLWithPath: big))
        let published = try broker.publish(["-q", "1", "-t", Self.topic + "/cmd", "-f", big])
        try #require(published.succeeded, "\(published)")
        #expect(watch.waitForStderr(containing: "dropped unread"), "\(watch.stderrSoFar)")
        #expect(watch.stderrSoFar.contains("a message of 4000"), "\(watch.stderrSoFar)")

        // The connection is still there: a command after it is answered ("t":"r").
        try broker.publish(["-q", "1", "-t", Self.topic + "/cmd", "-m", #"{"_type":"cmd","action":"reportLocation"}"#])
        let answer = try #require(subscriber.collect(on: Self.topic, count: 6).dropFirst(5).first, "\(watch.stderrSoFar)")
        #expect(ownTracksMessage(answer)?["t"] as? String == "r", "\(answer)")
        #expect((ownTracksMessage(answer)?["tst"] as? NSNumber)?.int64Value == SyntheticDrive.time(4), "\(answer)")
        let peak = try #require(Self.peakRSS(of: watch.pid))
        #expect(peak < floor + (24 << 20), "peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        print("mqtt: a 40 MB command through mosquitto: peak RSS \(peak >> 20) MiB (floor \(floor >> 20) MiB)")
    }

    @Test("over mqtts:// too: a 40 MB message on TOPIC/cmd is dropped unread, the watch goes on answering")
    func largeCommandOverTLSIsDropped() throws {
        let directory = try TemporaryDirectory(prefix: "overland-mqtt-bigtls-broker")
        let ca = try PrivateCA(directory: directory.path)
        let broker = try MosquittoBroker(directory: directory.path, tls: (ca.certificate, ca.key))
        let sandbox = try sandbox("overland-mqtt-bigtls", port: broker.port, scheme: "mqtts", keys: [("ca_file", ca.caFile)])
        let (_, floor) = try HostileMeasure.peakRSS(sandbox.sync, ["--help"])
        let watch = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--now", "--verbose"])
        defer { watch.kill(); _ = watch.wait() }
        let report = #"{"_type":"cmd","action":"reportLocation"}"#
        let answered = "reportLocation: the newest point published"
        // The drain said (--verbose) shows it listening: it subscribed to TOPIC/cmd first.
        try #require(watch.waitForStderr(containing: "5 points sent to"), "\(watch.stderrSoFar)")
        try broker.publish(["--cafile", ca.caFile, "-q", "1", "-t", Self.topic + "/cmd", "-m", report])
        try #require(watch.waitForStderr(containing: answered), "\(watch.stderrSoFar)")

        let big = sandbox.directory.appending("big-command")
        try Data(repeating: 0x20, count: 40_000_000).write(to: URL(fileURLWithPath: big))
        let published = try broker.publish(["--cafile", ca.caFile, "-q", "1", "-t", Self.topic + "/cmd", "-f", big])
        try #require(published.succeeded, "\(published)")
        #expect(watch.waitForStderr(containing: "dropped unread"), "\(watch.stderrSoFar)")
        try broker.publish(["--cafile", ca.caFile, "-q", "1", "-t", Self.topic + "/cmd", "-m", report])
        #expect(watch.waitForStderr(containing: answered, count: 2), "\(watch.stderrSoFar)")
        let peak = try #require(Self.peakRSS(of: watch.pid))
        #expect(peak < floor + (24 << 20), "peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        print("mqtt: a 40 MB command over mqtts://: peak RSS \(peak >> 20) MiB (floor \(floor >> 20) MiB)")
    }

    // MARK: - Issue 21: SUBACK 0x80, retained setConfiguration

    @Test("a SUBACK of 0x80 for TOPIC/cmd is said, the points still go, and --watch ends with 75")
    func refusedCommandSubscriptionIsSaid() throws {
        let broker = try FakeMQTTBroker(subackCode: 0x80)
        let sandbox = try sandbox("overland-mqtt-suback", port: broker.port)
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--watch", "--now"])
        result.expectExit(75)
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        #expect(result.stderrText.contains("refused the subscription to '\(Self.topic)/cmd' (suback 0x80"), "\(result.stderrText)")
        #expect(broker.subscriptions == [Self.topic + "/cmd"])
        // The points were delivered before the watch ended.
        let home = try #require(CursorName("home"))
        #expect(try Journal(path: sandbox.journal).cursor(for: home) == 5)
    }

    @Test("a retained setConfiguration is applied once, not again at every connection")
    func retainedSetConfigurationIsAppliedOnce() throws {
        let directory = try TemporaryDirectory(prefix: "overland-mqtt-retained-broker")
        let broker = try MosquittoBroker(directory: directory.path)
        let sandbox = try sandbox("overland-mqtt-retained", port: broker.port, keys: [("commands", "all"), ("send_interval", "30m")])
        let configuration = #"{"_type":"cmd","action":"setConfiguration","configuration":{"_type":"configuration","locatorInterval":30}}"#
        try broker.publish(["-q", "1", "-r", "-t", Self.topic + "/cmd", "-m", configuration])

        let first = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--now"])
        // Applied, then remembered: the state file naming it is the last step.
        let remembered = sandbox.journal + "/state/commands-home.json"
        try #require(waitUntil { FileManager.default.fileExists(atPath: remembered) || !first.isRunning }, "\(first.stderrSoFar)")
        first.kill(SIGTERM)
        _ = first.wait()
        try #require(Self.settings(sandbox).contains("\"min_time\": \"30s\""), "\(Self.settings(sandbox))")

        // The user changes it back; the next connection gets the same retained command.
        let local = try sandbox.overland.run(["config", "set", "min_time", "1m"])
        try #require(local.succeeded, "\(local)")
        let second = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--now", "--verbose"])
        // Either way it says something about the retained command (--verbose): "applied
        // before", or the changes it made again.
        #expect(second.waitForStderr(containing: "overland-sync: home: setConfiguration: "), "\(second.stderrSoFar)")
        #expect(second.stderrSoFar.contains("setConfiguration: the retained command was applied before; not again"), "\(second.stderrSoFar)")
        second.kill(SIGTERM)
        _ = second.wait()
        #expect(Self.settings(sandbox).contains("\"min_time\": \"1m\""), "\(Self.settings(sandbox))")
    }

    static func settings(_ sandbox: ReliabilitySandbox) -> String {
        (try? String(contentsOfFile: sandbox.settingsPath, encoding: .utf8)) ?? ""
    }

    // MARK: - Issue 22: commands opt-in, tracking off said out loud

    @Test("setConfiguration is not obeyed by default (commands report); with commands all it is, and tracking off is loud")
    func commandsAreOptIn() throws {
        let directory = try TemporaryDirectory(prefix: "overland-mqtt-optin-broker")
        let broker = try MosquittoBroker(directory: directory.path)
        let sandbox = try sandbox("overland-mqtt-optin", port: broker.port)
        let subscriber = try LiveSubscriber(broker: broker, root: "owntracks")
        let quiet = #"{"_type":"cmd","action":"setConfiguration","configuration":{"_type":"configuration","monitoring":-1}}"#

        let watch = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--now"])
        try #require(subscriber.collect(on: Self.topic, count: 5).count == 5, "\(watch.stderrSoFar)")
        try broker.publish(["-q", "1", "-t", Self.topic + "/cmd", "-m", quiet])
        #expect(watch.waitForStderr(containing: "setConfiguration not obeyed"), "\(watch.stderrSoFar)")
        #expect(watch.stderrSoFar.contains("'overland destination set home commands all'"), "\(watch.stderrSoFar)")
        // reportLocation is: the default is `report`.
        try broker.publish(["-q", "1", "-t", Self.topic + "/cmd", "-m", #"{"_type":"cmd","action":"reportLocation"}"#])
        #expect(subscriber.collect(on: Self.topic, count: 6).count == 6, "\(watch.stderrSoFar)")
        watch.kill(SIGTERM)
        _ = watch.wait()
        #expect(!Self.settings(sandbox).contains("tracking_mode"), "\(Self.settings(sandbox))")

        let allowed = try sandbox.overland.run(["destination", "set", "home", "commands", "all"])
        try #require(allowed.succeeded, "\(allowed)")
        let again = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--now", "--verbose"])
        let quietUnretained = #"{"_type":"cmd","action":"setConfiguration","configuration":{"_type":"configuration","monitoring":-1,"pubRetain":false}}"#
        try broker.publish(["-q", "1", "-t", Self.topic + "/cmd", "-m", quietUnretained])
        #expect(again.waitForStderr(containing: "tracking turned off"), "\(again.stderrSoFar)")
        // pubRetain is saved last (destinations.json), then said (--verbose): wait for that
        // before stopping the watch.
        #expect(again.waitForStderr(containing: "home.pub_retain: true -> false"), "\(again.stderrSoFar)")
        again.kill(SIGTERM)
        let stderr = again.wait().stderrText
        // The prefix once: "overland-sync: home: setConfiguration: ...".
        #expect(!stderr.contains("setConfiguration: setConfiguration"), "\(stderr)")
        #expect(Self.settings(sandbox).contains("\"tracking_mode\": \"off\""), "\(Self.settings(sandbox))")
        // pubRetain is the destination's pub_retain.
        let shown = try sandbox.overland.run(["destination", "show", "home"])
        #expect(shown.stdoutLines.contains { $0.hasPrefix("pub_retain") && $0.hasSuffix("false") }, "\(shown.stdoutText)")

        // The logger says so at start, with who and since when; status says it first.
        let logged = try sandbox.log.run(["--journal", sandbox.journal, "--device-id", "reliability",
                                          try sandbox.file("later.nmea", SyntheticDrive.text(100..<110))])
        logged.expectExit(0)
        #expect(logged.stderrText.contains("overland-log: tracking is off since "), "\(logged.stderrText)")
        #expect(logged.stderrText.contains("set by the mqtt broker of destination 'home' (setConfiguration)"), "\(logged.stderrText)")
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        #expect(status.stdoutLines.first?.hasPrefix("Logging is OFF: tracking is off since ") == true, "\(status.stdoutText)")
    }

    @Test("tracking turned off locally: the logger says so at start and when it changes")
    func trackingOffLocallyIsSaid() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-tracking-off")
        try sandbox.logEpochs(0..<3)
        let off = try sandbox.overland.run(["config", "set", "tracking_mode", "off"])
        try #require(off.succeeded, "\(off)")
        let logged = try sandbox.log.run(["--journal", sandbox.journal, "--device-id", "reliability",
                                          try sandbox.file("more.nmea", SyntheticDrive.text(10..<20))])
        logged.expectExit(0)
        #expect(logged.stderrText.contains("tracking is off since "), "\(logged.stderrText)")
        #expect(logged.stderrText.contains("set by a local command (overland)"), "\(logged.stderrText)")
        #expect(logged.stderrText.contains("'overland config set tracking_mode standard'"), "\(logged.stderrText)")
        // Scripts see it too: status --json names it, and null once tracking is on again.
        let json = try sandbox.overland.run(["status", "--journal", sandbox.journal, "--json"])
        let object = try #require(try JSONScan.object(json.stdout), "\(json)")
        let line = try #require(object["tracking_off"] as? String, "\(json.stdoutText)")
        #expect(line.contains("tracking is off since ") && line.contains("set by a local command (overland)"), "\(line)")
        try #require(try sandbox.overland.run(["config", "set", "tracking_mode", "standard"]).succeeded)
        let on = try sandbox.overland.run(["status", "--journal", sandbox.journal, "--json"])
        let onObject = try #require(try JSONScan.object(on.stdout), "\(on)")
        #expect(onObject["tracking_off"] is NSNull, "\(on.stdoutText)")
    }

    // MARK: - Issue 22: persistent session, discovery name, retained locations

    @Test("--watch connects at start with a persistent session: a command sent while it is away arrives when it is back")
    func commandsWaitAtTheBroker() throws {
        let directory = try TemporaryDirectory(prefix: "overland-mqtt-session-broker")
        let broker = try MosquittoBroker(directory: directory.path)
        let sandbox = try sandbox("overland-mqtt-session", port: broker.port, keys: [("send_interval", "30m")])
        let subscriber = try LiveSubscriber(broker: broker, root: "owntracks")
        // Delivered now: the watch that follows has nothing due for 30 minutes.
        let sent = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        try #require(sent.succeeded, "\(sent)")
        try #require(subscriber.collect(on: Self.topic, count: 5).count == 5)
        let report = #"{"_type":"cmd","action":"reportLocation"}"#

        // Not due, yet listening: it answers at once. Its "not due" (--verbose) comes after
        // the subscription to TOPIC/cmd.
        let first = try sandbox.sync.start(["--journal", sandbox.journal, "--watch", "--verbose"])
        try #require(first.waitForStderr(containing: "not due"), "\(first.stderrSoFar)")
        /// Answers to reportLocation (`"t":"r"`) carrying the point of epoch `index`.
        func answers(_ index: Int) -> Int {
            subscriber.payloads(on: Self.topic).compactMap(ownTracksMessage).filter {
                $0["t"] as? String == "r" && ($0["tst"] as? NSNumber)?.int64Value == SyntheticDrive.time(index)
            }.count
        }
        try broker.publish(["-q", "1", "-t", Self.topic + "/cmd", "-m", report])
        subscriber.collect { answers(4) >= 1 }
        try #require(answers(4) == 1, "\(first.stderrSoFar)")
        // Away (kill -9): the broker keeps the session and queues the command. A newer
        // point is logged meanwhile: only the next watch can answer with it.
        first.kill(SIGKILL)
        _ = first.wait()
        try sandbox.logEpochs(5..<6)
        try broker.publish(["-q", "1", "-t", Self.topic + "/cmd", "-m", report])
        let second = try sandbox.sync.start(["--journal", sandbox.journal, "--watch"])
        defer { second.kill(); _ = second.wait() }
        // (kill -9 also had the broker publish the first watch's last will on TOPIC.)
        subscriber.collect { answers(5) >= 1 }
        #expect(answers(5) == 1, "\(second.stderrSoFar)")
    }

    @Test("discovery is named by the device part; locations are retained (pub_retain), or not when it is false")
    func discoveryNameAndRetainedLocations() throws {
        let directory = try TemporaryDirectory(prefix: "overland-mqtt-retain-broker")
        let broker = try MosquittoBroker(directory: directory.path)
        let sandbox = try sandbox("overland-mqtt-retain", port: broker.port, keys: [("device_id", "alice/van"), ("discovery", "true")])
        let run = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        try #require(run.succeeded, "\(run)")

        let line = try #require(try broker.retained("homeassistant/device_tracker/owntracks_alice_van/config"))
        let discovery = try #require(ownTracksMessage(String(line.dropFirst("1 homeassistant/device_tracker/owntracks_alice_van/config ".count))))
        #expect(discovery["name"] as? String == "van")
        #expect((discovery["device"] as? [String: Any])?["name"] as? String == "van")

        // A subscriber that comes later sees the newest point at once.
        let location = try #require(try broker.retained("owntracks/alice/van"))
        #expect(location.hasPrefix("1 owntracks/alice/van "), "\(location)")
        #expect((ownTracksMessage(String(location.dropFirst("1 owntracks/alice/van ".count)))?["tst"] as? NSNumber)?.int64Value
                == SyntheticDrive.time(4))

        // pub_retain false: the next points are not retained (the broker's retained one is cleared first).
        try broker.publish(["-r", "-t", "owntracks/alice/van", "-n"])
        let off = try sandbox.overland.run(["destination", "set", "home", "pub_retain", "false"])
        try #require(off.succeeded, "\(off)")
        try sandbox.logEpochs(5..<8)
        let more = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        try #require(more.succeeded, "\(more)")
        let none = try broker.retained("owntracks/alice/van")
        #expect(none == nil, "\(none ?? "")")
    }

    // MARK: - Issue 22: one validation, at set time and at sync time

    @Test("destination add and set refuse what the sync would refuse, with the sync's words")
    func setTimeValidation() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-destination-validation")
        let overland = sandbox.overland
        let emptyPort = try overland.run(["destination", "add", "x", "http://127.0.0.1:/pub"])
        emptyPort.expectExit(64)
        #expect(emptyPort.stderrLines == ["overland destination: endpoint 'http://127.0.0.1:/pub' has an empty port after ':' (a port is a number from 1 to 65535)"],
                "\(emptyPort.stderrText)")
        let path = try overland.run(["destination", "add", "m", "mqtt://127.0.0.1:1883/x", "--protocol", "mqtt"])
        #expect(path.exitStatus == 64 && path.stderrLines.count == 1, "\(path)")
        #expect(path.stderrText.contains("broker url 'mqtt://127.0.0.1:1883/x' has a path or query"), "\(path.stderrText)")

        let added = try overland.run(["destination", "add", "m", "mqtt://127.0.0.1:1883", "--protocol", "mqtt"])
        try #require(added.succeeded, "\(added)")
        for (topic, words) in [("a//b", "invalid topic: empty level"), ("$SYS/x", "invalid topic: a leading '$'"),
                               (String(repeating: "t", count: 310), "invalid topic: 310 bytes, more than 256")] {
            let set = try overland.run(["destination", "set", "m", "topic", topic])
            #expect(set.exitStatus == 64 && set.stderrLines.count == 1, "\(topic): \(set)")
            #expect(set.stderrText.hasPrefix("overland destination: " + words), "\(set.stderrText)")
        }
        let url = try overland.run(["destination", "set", "m", "url", "mqtt://127.0.0.1:1883/x"])
        #expect(url.exitStatus == 64 && url.stderrText.contains("has a path or query"), "\(url)")

        // An OwnTracks device id has one '/' at most.
        let device = try overland.run(["destination", "set", "m", "device_id", "alice/van/2"])
        #expect(device.exitStatus == 64 && device.stderrLines.count == 1, "\(device)")
        #expect(device.stderrText.contains("device id 'alice/van/2' has more than one '/'"), "\(device.stderrText)")
        let owntracks = try overland.run(["destination", "add", "rec", "http://127.0.0.1:8083/pub", "--protocol", "owntracks",
                                          "--device-id", "alice/van/2"])
        #expect(owntracks.exitStatus == 64 && owntracks.stderrText.contains("has more than one '/'"), "\(owntracks)")
        // Overland receivers take any device id.
        let overlandReceiver = try overland.run(["destination", "add", "ov", "http://127.0.0.1:8080/pub", "--device-id", "alice/van/2"])
        #expect(overlandReceiver.succeeded, "\(overlandReceiver)")
    }

    @Test("the sync refuses a device id with two slashes for owntracks and mqtt (78, one line)")
    func syncTimeDeviceIDRefusal() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-deviceid-sync")
        try sandbox.logEpochs(0..<3)
        try sandbox.writeSettings(#"{"protocol": "owntracks"}"#)
        let http = try sandbox.sync.run(["--journal", sandbox.journal, "--url", "http://127.0.0.1:9/pub", "--device-id", "alice/van/2", "--now"])
        #expect(http.exitStatus == 78 && http.stderrLines.count == 1, "\(http)")
        #expect(http.stderrText.contains("device id 'alice/van/2' has more than one '/'"), "\(http.stderrText)")
        let mqtt = try sandbox.sync.run(["--journal", sandbox.journal, "--url", "mqtt://127.0.0.1:9", "--device-id", "alice/van/2", "--now"])
        #expect(mqtt.exitStatus == 78 && mqtt.stderrLines.count == 1, "\(mqtt)")
        #expect(mqtt.stderrText.contains("device id 'alice/van/2' has more than one '/'"), "\(mqtt.stderrText)")
        #expect(try sandbox.cursor() == 0)
    }
}
