import TestSupport
import Foundation
import OverlandJSON
import OverlandJournal
import Testing

/// Receivers that keep what they choose and answer their read API from what they kept,
/// shaped from the real projects' source (docs/receivers.md, "Reading back"):
///
/// - OwnTracks Recorder: `/pub` files a location under the user and device of `u`/`d` (or
///   `X-Limit-U`/`X-Limit-D`) as util.c `pathn` names the directory (`recorderFiled`: ASCII
///   letters lowered, every other byte but a digit `-`) and answers `[]` (recorder http.c);
///   `/api/0/locations` needs `user` and `device` (http.c: 416 "user and device are
///   required"), lowers them only (storage.c `lister`) and answers `{"data":[..]}` strictly
///   between `from` (absent: now - 6 h, storage.c `make_times`, `DEFAULT_HISTORY_HOURS` 6)
///   and `to` (absent: now): storage.c `candidate_line` skips `secs <= s_lo || secs >= s_hi`.
///   Times as `%Y-%m-%dT%H:%M:%S`; each record as `line_to_location` writes it (about 300
///   bytes), or only the members `fields` names.
/// - Compass: `/api/input?token=W` takes `{"locations":[..]}` and answers
///   `{"result":"ok","saved":N}`; `/api/query?token=R&start&end&format=full` answers
///   `{"locations":[the features as sent]}` (Compass Api.php `input`, `query`).
/// - Dawarich: `/api/v1/overland/batches?api_key=K` answers 201 `{"result":"ok"}`;
///   `/api/v1/points?api_key&start_at&end_at&page&per_page&order` answers one page of
///   `{"timestamp","latitude","longitude"}` (strings, as its serializer writes them) with
///   `X-Current-Page` and `X-Total-Pages` (points_controller.rb `index`).
/// - Home Assistant: the OwnTracks webhook `/api/webhook/ID` answers 200 `[]` and ignores
///   a location without `acc` or with `acc` 0 (owntracks messages.py); the tracker is the
///   entity registered for `(owntracks, slug(USER_DEVICE))`, named `device_tracker.SLUG`
///   or, when that id is taken (a decoy: `decoy(_:)`), `SLUG_2` (entity_registry.py
///   `async_generate_entity_id`); history `/api/history/period/START?filter_entity_id&end_time`
///   answers `[[state..]]` with `attributes.latitude`/`longitude` and `last_updated` = when
///   it was recorded (history/__init__.py `HistoryPeriodView`), with a long-lived token;
///   `POST /api/template` answers the tracker lookup `HomeAssistantReader` asks from the
///   registry (the template's integration, identifier and guessed id read from its text).
///
/// `keep(receipt, point)` decides what is kept: the lossy store, the one that drops
/// fractional speeds, the one that refuses a region.
final class StandInStore: @unchecked Sendable {
    struct Held: Sendable {
        var time: Int64
        var latitude: Double
        var longitude: Double
        var device: String
        var speed: Double
        var recordedAt: Int64
    }

    typealias Keep = @Sendable (_ receipt: Int, _ point: Held) -> Bool

    private let lock = NSLock()
    private var held: [Held] = []
    private var receipts = 0
    private var reads: [String] = []
    private let keep: Keep

    /// Whether the store keeps one point a second whatever the device (a time column
    /// unique across devices, as Wayfinder's): a later point in a held second is dropped.
    private let uniqueSeconds: Bool
    /// Whether what it keeps shows in its read API only once the test calls `commit()`,
    /// as Home Assistant's recorder commits every 5 s after the webhook has answered.
    private let commitsLater: Bool
    private var uncommitted: [Held] = []

    init(uniqueSeconds: Bool = false, commitsLater: Bool = false, keep: @escaping Keep = { _, _ in true }) {
        self.uniqueSeconds = uniqueSeconds
        self.commitsLater = commitsLater
        self.keep = keep
    }

    /// Stores what was received since the last commit (a store that `commitsLater`).
    func commit() {
        lock.withLock {
            held += uncommitted.map { point in
                var point = point
                point.recordedAt = Self.now
                return point
            }
            uncommitted.removeAll()
        }
    }

    /// Every point kept.
    var points: [Held] { lock.withLock { held } }
    /// The query part of every read request.
    var readQueries: [String] { lock.withLock { reads } }
    /// Points received (kept or not).
    var received: Int { lock.withLock { receipts } }

    /// Files `point` as received (kept or not, as `keep` says).
    func receive(_ point: Held) {
        lock.withLock {
            receipts += 1
            if uniqueSeconds, held.contains(where: { $0.time == point.time }) { return }
            guard keep(receipts, point) else { return }
            if commitsLater { uncommitted.append(point) } else { held.append(point) }
        }
    }

    /// Whether read requests fail (503), as a receiver that is down for reading.
    var readsFail: Bool {
        get { lock.withLock { failingReads } }
        set { lock.withLock { failingReads = newValue } }
    }
    private var failingReads = false

    /// Puts `point` in the store as if it had been received from elsewhere.
    func inject(_ point: Held) { lock.withLock { held.append(point) } }

    /// Loses the points `lost` says, as a receiver restored from an older backup does.
    func lose(where lost: (Held) -> Bool) { lock.withLock { held.removeAll(where: lost) } }

    // MARK: Home Assistant's entity registry

    /// Entity ids by the (integration, device identifier) they were registered for.
    private var registry: [String: String] = [:]
    /// Entity ids taken by something else (a state set through the API, another integration).
    private var taken: Set<String> = []

    /// The entity registered for `identifier` of `integration`, registering it as Home
    /// Assistant does: `suggested` while free, else `suggested_2`, `_3`...
    func entity(integration: String, identifier: String, suggested: String) -> String {
        lock.withLock {
            let key = integration + "\n" + identifier
            if let known = registry[key] { return known }
            var candidate = suggested
            var number = 2
            while taken.contains(candidate) || registry.values.contains(candidate) {
                candidate = suggested + "_\(number)"
                number += 1
            }
            registry[key] = candidate
            return candidate
        }
    }

    /// An entity `entityID` that is not the device's (a decoy): its id is taken.
    func decoy(_ entityID: String) { lock.withLock { _ = taken.insert(entityID) } }

    /// The answer to `HomeAssistantReader`'s lookup template: the entities registered for
    /// its integration and identifier, and whether its guessed id exists.
    func templateAnswer(_ template: String) -> [String: Any] {
        func captures(_ pattern: String) -> [String] {
            guard let expression = try? NSRegularExpression(pattern: pattern),
                  let match = expression.firstMatch(in: template, range: NSRange(template.startIndex..., in: template)) else { return [] }
            return (1..<match.numberOfRanges).compactMap { Range(match.range(at: $0), in: template).map { String(template[$0]) } }
        }
        let pair = captures(#"\('([^']*)', '([^']*)'\) in"#)
        let guess = captures(#"expand\('([^']*)'\)"#).first ?? ""
        return lock.withLock {
            let ours = pair.count == 2 ? registry[pair[0] + "\n" + pair[1]].map { [$0] } ?? [] : []
            let exists = taken.contains(guess) || registry.values.contains(guess)
            return ["ours": ours, "taken": exists ? [guess] : []]
        }
    }

    /// `name` as the OwnTracks Recorder files it (util.c `ut_lower`, C locale).
    static func recorderFiled(_ name: String) -> String {
        String(decoding: name.utf8.map { byte -> UInt8 in
            if (65...90).contains(byte) { return byte + 32 }
            return (97...122).contains(byte) || (48...57).contains(byte) ? byte : UInt8(ascii: "-")
        }, as: UTF8.self)
    }

    /// A location as the Recorder's `line_to_location` answers it, with only `fields` when given.
    static func recorderRecord(_ held: Held, fields: String?) -> [String: Any] {
        let stamp = ISO8601UTC.string(from: held.time)
        let record: [String: Any] = [
            "_type": "location", "tst": held.time, "lat": held.latitude, "lon": held.longitude, "tid": "an", "acc": 5, "alt": 100,
            "vel": 7, "cog": 10, "batt": 80, "bs": 1, "topic": "owntracks/" + held.device, "isorcv": stamp, "isotst": stamp,
            "disptst": stamp.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: ""),
            "tzname": "Etc/UTC", "ghash": "u0yjjd6", "cc": "DE", "addr": "Marienplatz 1, 80331 Muenchen, Germany",
        ]
        guard let fields else { return record }
        let wanted = Set(fields.split(separator: ",").map(String.init))
        return record.filter { wanted.contains($0.key) }
    }

    private func noteRead(_ uri: String) { lock.withLock { reads.append(uri) } }

    static func query(_ uri: String) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(string: uri)?.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }

    static func path(_ uri: String) -> String { String(uri.prefix { $0 != "?" }) }

    static func json(_ body: [UInt8]) -> Any? { try? JSONSerialization.jsonObject(with: Data(body)) }

    static func reply(_ status: Int, _ object: Any, headers: [(String, String)] = []) -> LocalServer.Behaviour {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return .reply(status: status, body: Array(data), headers: headers + [("Content-Type", "application/json")])
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    // MARK: OwnTracks Recorder

    var recorder: LocalServer.Script {
        { [self] _, request in
            let query = Self.query(request.uri)
            switch (request.method, Self.path(request.uri)) {
            case ("POST", "/pub"):
                guard let user = query["u"] ?? request.header("X-Limit-U"), let device = query["d"] ?? request.header("X-Limit-D"),
                      let message = Self.json(request.body) as? [String: Any], message["_type"] as? String == "location",
                      let lat = message["lat"] as? Double, let lon = message["lon"] as? Double, let tst = message["tst"] as? Int
                else { return LocalServer.text(400, "") }
                receive(Held(time: Int64(tst), latitude: lat, longitude: lon,
                             device: Self.recorderFiled(user) + "/" + Self.recorderFiled(device),
                             speed: (message["vel"] as? Double) ?? -1, recordedAt: Self.now))
                return LocalServer.text(200, "[]")
            case ("GET", "/api/0/locations"):
                noteRead(request.uri)
                if readsFail { return LocalServer.text(503, "") }
                guard let user = query["user"], let device = query["device"] else {
                    return LocalServer.text(416, "user and device are required\n")
                }
                let from = query["from"].flatMap { ISO8601UTC.parse($0 + "Z") } ?? Self.now - 6 * 3600
                let to = query["to"].flatMap { ISO8601UTC.parse($0 + "Z") } ?? Self.now
                let key = user.lowercased() + "/" + device.lowercased()
                let data = points.filter { $0.device == key && $0.time > from && $0.time < to }
                    .map { Self.recorderRecord($0, fields: query["fields"]) }
                return Self.reply(200, ["data": data, "status": 200, "version": "0.9.9"])
            default:
                return LocalServer.text(404, "")
            }
        }
    }

    // MARK: Compass

    func compass(writeToken: String, readToken: String) -> LocalServer.Script {
        { [self] _, request in
            let query = Self.query(request.uri)
            switch (request.method, Self.path(request.uri)) {
            case ("POST", "/api/input"):
                guard query["token"] == writeToken else { return Self.reply(200, ["error": "invalid token"]) }
                guard let body = Self.json(request.body) as? [String: Any], let locations = body["locations"] as? [[String: Any]] else {
                    return Self.reply(200, ["error": "invalid input"])
                }
                for feature in locations {
                    guard let properties = feature["properties"] as? [String: Any], let stamp = properties["timestamp"] as? String,
                          let time = ISO8601UTC.parse(stamp), let coordinates = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Double],
                          coordinates.count == 2 else { continue }
                    receive(Held(time: time, latitude: coordinates[1], longitude: coordinates[0],
                                 device: properties["device_id"] as? String ?? "", speed: properties["speed"] as? Double ?? -1, recordedAt: Self.now))
                }
                return Self.reply(200, ["result": "ok", "saved": locations.count, "trips": 0])
            case ("GET", "/api/query"):
                noteRead(request.uri)
                guard query["token"] == readToken else { return Self.reply(200, ["error": "invalid token"]) }
                guard let start = query["start"].flatMap(ISO8601UTC.parse), let end = query["end"].flatMap(ISO8601UTC.parse) else {
                    return Self.reply(200, ["error": "no date provided"])
                }
                let locations = points.filter { $0.time >= start && $0.time <= end }.map { held -> [String: Any] in
                    ["type": "Feature", "geometry": ["type": "Point", "coordinates": [held.longitude, held.latitude]],
                     "properties": ["timestamp": ISO8601UTC.string(from: held.time), "device_id": held.device, "speed": held.speed]]
                }
                return Self.reply(200, ["locations": locations])
            default:
                return LocalServer.text(404, "")
            }
        }
    }

    // MARK: Dawarich

    func dawarich(apiKey: String) -> LocalServer.Script {
        { [self] _, request in
            let query = Self.query(request.uri)
            guard query["api_key"] == apiKey else { return Self.reply(401, ["error": "api key is invalid"]) }
            switch (request.method, Self.path(request.uri)) {
            case ("POST", "/api/v1/overland/batches"):
                guard let body = Self.json(request.body) as? [String: Any], let locations = body["locations"] as? [[String: Any]] else {
                    return Self.reply(422, ["error": "invalid"])
                }
                for feature in locations {
                    guard let properties = feature["properties"] as? [String: Any], let stamp = properties["timestamp"] as? String,
                          let time = ISO8601UTC.parse(stamp), let coordinates = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Double],
                          coordinates.count == 2 else { continue }
                    receive(Held(time: time, latitude: coordinates[1], longitude: coordinates[0], device: "",
                                 speed: properties["speed"] as? Double ?? -1, recordedAt: Self.now))
                }
                return Self.reply(201, ["result": "ok"])
            case ("GET", "/api/v1/points"):
                noteRead(request.uri)
                let start = query["start_at"].flatMap(ISO8601UTC.parse) ?? 0
                let end = query["end_at"].flatMap(ISO8601UTC.parse) ?? Self.now
                let perPage = max(1, Int(query["per_page"] ?? "") ?? 100)
                let page = max(1, Int(query["page"] ?? "") ?? 1)
                let all = points.filter { $0.time >= start && $0.time <= end }.sorted { $0.time < $1.time }
                let pages = max(1, (all.count + perPage - 1) / perPage)
                let slice = all.dropFirst((page - 1) * perPage).prefix(perPage).map { held -> [String: Any] in
                    ["id": held.time, "timestamp": held.time, "latitude": String(held.latitude), "longitude": String(held.longitude)]
                }
                return Self.reply(200, Array(slice), headers: [("X-Current-Page", String(page)), ("X-Total-Pages", String(pages))])
            default:
                return LocalServer.text(404, "")
            }
        }
    }

    // MARK: Traccar

    /// Traccar (traccar/traccar at 9e5c458a): its OsmAnd port takes the JSON Traccar Client
    /// posts (`protocol/OsmAndProtocolDecoder.java`, JSON branch: `device_id`,
    /// `location.timestamp`, `location.coords`), 404 for a device it does not know, 200 with
    /// no body; its API takes a user's HTTP Basic credentials (`api/security/
    /// SecurityRequestFilter.java`: 401 otherwise) and answers `GET /api/devices?uniqueId=`
    /// with the devices (`api/resource/DeviceResource.java:87-103`) and `GET /api/positions?
    /// deviceId&from&to` with the device's positions in the range, `fixTime` the fix's time
    /// as Jackson writes a `Date` (`api/resource/PositionResource.java:73-96`,
    /// `model/Position.java`). One server here serves both ports' paths.
    func traccar(uniqueID: String, credentials: String) -> LocalServer.Script {
        let deviceNumber = 7
        return { [self] _, request in
            let path = Self.path(request.uri)
            if request.method == "POST", path == "/" {
                guard let root = Self.json(request.body) as? [String: Any], let id = root["device_id"] as? String else {
                    return LocalServer.text(400, "")
                }
                guard id == uniqueID else { return LocalServer.text(404, "") }
                guard let location = root["location"] as? [String: Any], let stamp = location["timestamp"] as? String,
                      let time = ISO8601UTC.parse(stamp), let coords = location["coords"] as? [String: Any],
                      let lat = coords["latitude"] as? Double, let lon = coords["longitude"] as? Double
                else { return LocalServer.text(400, "") }
                receive(Held(time: time, latitude: lat, longitude: lon, device: id, speed: coords["speed"] as? Double ?? -1,
                             recordedAt: Self.now))
                return LocalServer.text(200, "")
            }
            guard request.method == "GET", path.hasPrefix("/api/") else { return LocalServer.text(404, "") }
            noteRead(request.uri)
            let expected = "Basic " + Data(credentials.utf8).base64EncodedString()
            guard request.header("Authorization") == expected else { return LocalServer.text(401, "") }
            let query = Self.query(request.uri)
            switch path {
            case "/api/devices":
                let devices: [[String: Any]] = query["uniqueId"] == uniqueID
                    ? [["id": deviceNumber, "name": uniqueID, "uniqueId": uniqueID, "status": "online"]] : []
                return Self.reply(200, devices)
            case "/api/positions":
                guard query["deviceId"] == String(deviceNumber), let from = query["from"].flatMap(ISO8601UTC.parse),
                      let to = query["to"].flatMap(ISO8601UTC.parse) else { return Self.reply(400, ["message": "bad range"]) }
                let positions = points.filter { $0.device == uniqueID && $0.time >= from && $0.time <= to }.map { held -> [String: Any] in
                    let stamp = ISO8601UTC.string(from: held.time).replacingOccurrences(of: "Z", with: ".000+00:00")
                    return ["id": held.time, "deviceId": deviceNumber, "protocol": "osmand", "serverTime": stamp, "deviceTime": stamp,
                            "fixTime": stamp, "valid": true, "latitude": held.latitude, "longitude": held.longitude,
                            "altitude": 100, "speed": 3.9, "course": 10, "accuracy": 5, "attributes": [String: Any]()]
                }
                return Self.reply(200, positions)
            default:
                return LocalServer.text(404, "")
            }
        }
    }

    // MARK: Home Assistant

    func homeAssistant(token: String) -> LocalServer.Script {
        { [self] _, request in
            let path = Self.path(request.uri)
            if request.method == "POST", path.hasPrefix("/api/webhook/") {
                guard let message = Self.json(request.body) as? [String: Any], message["_type"] as? String == "location",
                      let lat = message["lat"] as? Double, let lon = message["lon"] as? Double, let topic = message["topic"] as? String
                else { return Self.reply(200, [Any]()) }
                // messages.py: a location without acc, or with acc 0, does not move the tracker.
                guard let acc = message["acc"] as? Int, acc > 0 else { return Self.reply(200, [Any]()) }
                let slug = topic.split(separator: "/").dropFirst().joined(separator: "_").lowercased()
                let entityID = entity(integration: "owntracks", identifier: slug, suggested: "device_tracker." + slug)
                receive(Held(time: Int64(message["tst"] as? Int ?? 0), latitude: lat, longitude: lon,
                             device: entityID, speed: -1, recordedAt: Self.now))
                return Self.reply(200, [Any]())
            }
            if request.method == "POST", path == "/api/template" {
                guard request.header("Authorization") == "Bearer " + token else { return Self.reply(401, ["message": "401: Unauthorized"]) }
                guard let template = (Self.json(request.body) as? [String: Any])?["template"] as? String else {
                    return Self.reply(400, ["message": "Error rendering template"])
                }
                let data = (try? JSONSerialization.data(withJSONObject: templateAnswer(template))) ?? Data()
                return .reply(status: 200, body: Array(data), headers: [("Content-Type", "text/plain; charset=utf-8")])
            }
            if request.method == "GET", path.hasPrefix("/api/history/period/") {
                noteRead(request.uri)
                guard request.header("Authorization") == "Bearer " + token else { return Self.reply(401, ["message": "401: Unauthorized"]) }
                let query = Self.query(request.uri)
                guard let start = ISO8601UTC.parse(String(path.dropFirst("/api/history/period/".count))) else {
                    return Self.reply(400, ["message": "Invalid datetime"])
                }
                let end = query["end_time"].flatMap(ISO8601UTC.parse) ?? start + 86_400
                let entity = query["filter_entity_id"] ?? ""
                let states = points.filter { $0.device == entity && $0.recordedAt >= start && $0.recordedAt <= end }.map { held -> [String: Any] in
                    ["entity_id": entity, "state": "not_home", "last_changed": ISO8601UTC.string(from: held.recordedAt),
                     "last_updated": ISO8601UTC.string(from: held.recordedAt).replacingOccurrences(of: "Z", with: ".123456+00:00"),
                     "attributes": ["source_type": "gps", "latitude": held.latitude, "longitude": held.longitude, "gps_accuracy": 5,
                                    "battery_level": 80, "friendly_name": "van"]]
                }
                return Self.reply(200, states.isEmpty ? [[Any]]() : [states])
            }
            return LocalServer.text(404, "")
        }
    }
}

/// A journal written directly: one location per entry, as the logger writes them.
enum ReadBackJournal {
    static let t0: Int64 = 1_709_251_200  // 2024-03-01T00:00:00Z: older than any default window

    /// The points of `range` (`Point(index:)`), each changed by `change`.
    static func points(_ range: Range<Int>, _ change: (inout Point) -> Void = { _ in }) -> [Point] {
        range.map { index in
            var point = Point(index: index)
            change(&point)
            return point
        }
    }

    /// A sandbox whose settings are `settings` (`overland config set KEY VALUE` each, every
    /// one required to succeed).
    static func sandbox(_ settings: [[String]]) throws -> LogSandbox {
        let sandbox = try LogSandbox()
        for setting in settings {
            let set = try sandbox.overland.run(["config", "set"] + setting)
            try #require(set.exitStatus == 0, "\(setting): \(set)")
        }
        return sandbox
    }

    struct Point {
        var index: Int
        var speed = 2.0
        var accuracy = 5
        var device = "van"
        var time: Int64 { ReadBackJournal.t0 + Int64(index) }
        var latitude: Double { 45.5 + Double(index) * 0.0001 }
        var longitude: Double { -77.7 + Double(index) * 0.0001 }

        var line: String {
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(longitude),\#(latitude)]},"properties":{"timestamp":""#
                + ISO8601UTC.string(from: time)
                + #"","altitude":100,"speed":\#(speed),"course":10,"horizontal_accuracy":\#(accuracy),"vertical_accuracy":3,"#
                + #""speed_accuracy":-1,"course_accuracy":-1,"motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"#
                + #""wifi":"","device_id":"\#(device)"}}"#
        }
    }

    /// Appends `points` to the journal at `path` (created when absent).
    static func append(_ points: [Point], to path: String) throws {
        let journal = try Journal(path: path, create: true, deviceID: "van")
        let appender = try JournalAppender(journal: journal)
        for point in points { try appender.append(Array(point.line.utf8)) }
        try appender.commit()
    }
}
