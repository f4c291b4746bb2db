import OverlandJSON
import OverlandProtocol

/// Home Assistant: `GET /api/history/period/START?filter_entity_id=device_tracker.E&end_time=..
/// &significant_changes_only=0` with a long-lived access token (`Authorization: Bearer`),
/// answering `[[{"entity_id":..,"attributes":{"latitude":..,"longitude":..},"last_updated":..},..]]`.
/// The OwnTracks integration names the tracker `device_tracker.USER_DEVICE` (slugified) and
/// keeps no fix time: `last_updated` is when Home Assistant recorded the state, so points
/// are matched by position, read from the first fix's second to the time of reading.
public struct HomeAssistantReader: ReadBackReader {
    public var origin: String
    public var entityID: String
    public var token: String?

    public init(origin: String, user: String, device: String, token: String?) {
        self.init(origin: origin, entityID: "device_tracker." + Self.slug(user + "_" + device), token: token)
    }

    /// A reader of the tracker `entityID` (`device_tracker.NAME`).
    public init(origin: String, entityID: String, token: String?) {
        self.origin = origin
        self.entityID = entityID
        self.token = token
    }

    public var receiverName: String { "Home Assistant" }
    public var keepsFixTime: Bool { false }

    public func request(from: Int64, through: Int64, page: Int) -> ReceiverRequest {
        ReadBackHTTP.get(origin + "/api/history/period/" + ISO8601UTC.string(from: from),
                         [("filter_entity_id", entityID), ("end_time", ISO8601UTC.string(from: through + 1)),
                          ("significant_changes_only", "0")], headers: ReadBackHTTP.bearer(token))
    }

    public func parse(_ reply: HTTPReply, page: Int) throws(ReadBackError) -> ReadBackPage {
        let json = try ReadBackHTTP.json(reply, receiverName)
        guard let lists = json.array else { throw ReadBackError("\(receiverName)'s answer is not a list of histories") }
        var points: [StoredPoint] = []
        for list in lists {
            for state in list.array ?? [] where state["entity_id"]?.string.map({ $0 == entityID }) ?? true {
                let attributes = state["attributes"]
                if let point = ReadBackHTTP.point(time: state["last_updated"], latitude: attributes?["latitude"],
                                                  longitude: attributes?["longitude"]) {
                    points.append(point)
                }
            }
        }
        return ReadBackPage(points: points)
    }

    /// Home Assistant's `slugify` for ASCII names: lower case, every run of other
    /// characters one `_`, none at either end.
    static func slug(_ text: String) -> String {
        var output = ""
        var pendingSeparator = false
        for scalar in text.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                if pendingSeparator, !output.isEmpty { output += "_" }
                pendingSeparator = false
                output.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
            }
        }
        return output
    }
}
