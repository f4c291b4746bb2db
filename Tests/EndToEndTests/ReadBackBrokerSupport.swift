import TestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The OwnTracks Recorder as its broker feeds it, for read-back through an mqtt
/// destination: a `mosquitto_sub` subscribed as the Recorder subscribes (owntracks/recorder
/// at ae2fd296, recorder.c:67-68: QoS 2, clean session off, so the broker queues what
/// arrives while it is away; `--topics` default `owntracks/#`), filing each location
/// under the topic's second and third level as the Recorder does (recorder.c:791-842:
/// fewer than three levels ignored, user and device from levels 2 and 3) into a
/// `StandInStore`, whose `recorder` script answers `/api/0/locations` from what was filed.
///
/// Filing happens when the test pumps (`file(until:)`): what the Recorder holds changes
/// only between runs, never under a run's read-back.
final class BrokerFedRecorder: @unchecked Sendable {
    let broker: MosquittoBroker
    let store: StandInStore
    /// The client id: the same on every connection, as the Recorder's (`--id`).
    let clientID = "ot-recorder-standin"
    private var process: RunningTool?

    init(broker: MosquittoBroker, store: StandInStore) throws {
        self.broker = broker
        self.store = store
        try connect()
    }

    /// Starts the subscriber and waits until its subscription is in place (a probe it saw).
    func connect() throws {
        let process = try ToolRunner(executable: "/usr/bin/mosquitto_sub")
            .start(["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "2", "-c", "-i", clientID, "-v", "-t", "owntracks/#"])
        self.process = process
        let deadline = ContinuousClock.now + ToolRunner.hangGuard
        var attempt = 0
        while ContinuousClock.now < deadline {
            attempt += 1
            // Two levels: the Recorder ignores it (recorder.c: "Ignoring short topic").
            try broker.publish(["-q", "1", "-t", "owntracks/probe", "-m", "probe-\(attempt)"])
            let end = ContinuousClock.now + .milliseconds(300)
            while ContinuousClock.now < end {
                let (line, _) = process.readLine(timeout: .milliseconds(100))
                guard let line else { continue }
                if line.hasPrefix("owntracks/probe ") { return }
                file(line)
            }
        }
        throw ToolRunnerError(description: "the Recorder stand-in never saw its probe: \(process.stderrSoFar)")
    }

    /// Goes away (SIGTERM): its session stays at the broker, which queues for it.
    func disconnect() {
        process?.kill(SIGTERM)
        _ = process?.wait()
        process = nil
    }

    /// Files what arrives until the store holds `count` points (or the hang guard ends).
    /// The store's count.
    @discardableResult
    func file(until count: Int) -> Int {
        guard let process else { return store.points.count }
        return Self.read(process, into: store, until: count, file)
    }

    /// Files what arrives until the store has received `count` points, kept or not (or the
    /// hang guard ends). The store's count of points received.
    @discardableResult
    func receive(until count: Int) -> Int {
        guard let process else { return store.received }
        _ = Self.read(process, into: store, until: count, counting: { $0.received }, file)
        return store.received
    }

    /// Reads `mosquitto_sub -v` lines from `process`, each handed to `file`, until `store`
    /// holds `count` points (`counting` says what counts; or the hang guard ends, or the
    /// process does); the count of points held.
    static func read(_ process: RunningTool, into store: StandInStore, until count: Int,
                     counting: (StandInStore) -> Int = { $0.points.count }, _ file: (String) -> Void) -> Int {
        let deadline = ContinuousClock.now + ToolRunner.hangGuard
        while counting(store) < count, ContinuousClock.now < deadline {
            let (line, timedOut) = process.readLine(timeout: .milliseconds(200))
            if let line { file(line) } else if !timedOut { break }
        }
        return store.points.count
    }

    /// A `mosquitto_sub -v` line, `TOPIC PAYLOAD`: the topic's levels and the OwnTracks
    /// location in the payload, or nil for any other message.
    static func location(_ line: String) -> (levels: [Substring], message: [String: Any], latitude: Double, longitude: Double)? {
        guard let space = line.firstIndex(of: " "),
              let message = StandInStore.json(Array(line[line.index(after: space)...].utf8)) as? [String: Any],
              message["_type"] as? String == "location", let lat = message["lat"] as? Double, let lon = message["lon"] as? Double
        else { return nil }
        return (line[..<space].split(separator: "/", omittingEmptySubsequences: false), message, lat, lon)
    }

    /// Files one line as the Recorder does.
    private func file(_ line: String) {
        guard let found = Self.location(line), found.levels.count >= 3,
              let tst = (found.message["tst"] as? NSNumber)?.int64Value else { return }
        store.receive(StandInStore.Held(time: tst, latitude: found.latitude, longitude: found.longitude,
                                        device: StandInStore.recorderFiled(String(found.levels[1])) + "/"
                                            + StandInStore.recorderFiled(String(found.levels[2])),
                                        speed: (found.message["vel"] as? Double) ?? -1, recordedAt: StandInStore.now))
    }

    deinit { disconnect() }
}

/// Home Assistant's MQTT integration as a discovery config meets it (home-assistant/core,
/// `components/mqtt/discovery.py`: a config on `homeassistant/COMPONENT/OBJECT_ID/config`
/// is validated and the entity set up; only then does the entity subscribe to its topics,
/// `components/mqtt/mixins.py`/`entity.py` `async_added_to_hass`): a subscriber on
/// `homeassistant/#`, and, once the test has it process the config (`processConfig`), a
/// second one on the config's `json_attributes_topic`, which gets the retained message at
/// once and each later one. Each location it gets is a state of the tracker's entity,
/// recorded now, in the store whose `homeAssistant` script answers the history API. The
/// entity is registered for `(mqtt, the device's first identifier)` and named as Home
/// Assistant 2024.3.3 names it (mqtt/mixins.py `_init_entity_id`, entity.py
/// `_friendly_name_internal`): `device_tracker.OBJECT_ID` from the config's `object_id`,
/// else the device's name and the entity's slugified (`van_van`: since 2024.2 an entity
/// named as its device keeps both), `_2` after an id taken.
final class BrokerFedHomeAssistant: @unchecked Sendable {
    let broker: MosquittoBroker
    let store: StandInStore
    private let discovery: RunningTool
    private var tracker: RunningTool?
    private(set) var entityID = ""

    init(broker: MosquittoBroker, store: StandInStore) throws {
        self.broker = broker
        self.store = store
        discovery = try ToolRunner(executable: "/usr/bin/mosquitto_sub")
            .start(["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-v", "-t", "homeassistant/#"])
        let deadline = ContinuousClock.now + ToolRunner.hangGuard
        var attempt = 0
        while ContinuousClock.now < deadline {
            attempt += 1
            try broker.publish(["-q", "1", "-t", "homeassistant/status", "-m", "online-\(attempt)"])
            if let line = discovery.readLine(timeout: .milliseconds(300)).line, line.hasPrefix("homeassistant/status ") { return }
        }
        throw ToolRunnerError(description: "the Home Assistant stand-in never saw its probe: \(discovery.stderrSoFar)")
    }

    /// Reads until a `device_tracker` config arrives, then subscribes to its attributes
    /// topic as the entity does, and waits for the retained message there.
    func processConfig() throws {
        let deadline = ContinuousClock.now + ToolRunner.hangGuard
        while ContinuousClock.now < deadline {
            guard let line = discovery.readLine(timeout: .milliseconds(200)).line,
                  line.hasPrefix("homeassistant/device_tracker/"), let space = line.firstIndex(of: " "),
                  let config = StandInStore.json(Array(line[line.index(after: space)...].utf8)) as? [String: Any],
                  let name = config["name"] as? String, let topic = config["json_attributes_topic"] as? String else { continue }
            let device = config["device"] as? [String: Any]
            let identifier = (device?["identifiers"] as? [String])?.first ?? ""
            let suggested = config["object_id"] as? String ?? Self.slug((device?["name"] as? String).map { $0 + " " + name } ?? name)
            entityID = store.entity(integration: "mqtt", identifier: identifier, suggested: "device_tracker." + suggested)
            tracker = try ToolRunner(executable: "/usr/bin/mosquitto_sub")
                .start(["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-v", "-t", topic])
            return
        }
        throw ToolRunnerError(description: "no device_tracker config arrived")
    }

    /// Home Assistant's `slugify` for ASCII names.
    static func slug(_ text: String) -> String {
        text.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.joined(separator: "_")
    }

    /// Records what the tracker's topic brings until the store holds `count` states; the count.
    @discardableResult
    func record(until count: Int) -> Int {
        guard let tracker else { return store.points.count }
        return BrokerFedRecorder.read(tracker, into: store, until: count) { [self] line in
            guard let found = BrokerFedRecorder.location(line) else { return }
            store.receive(StandInStore.Held(time: (found.message["tst"] as? NSNumber)?.int64Value ?? 0, latitude: found.latitude,
                                            longitude: found.longitude, device: entityID, speed: -1, recordedAt: StandInStore.now))
        }
    }

    deinit {
        for process in [discovery] + (tracker.map { [$0] } ?? []) {
            process.kill(SIGTERM)
            _ = process.wait()
        }
    }
}
