import OverlandJSON
import OverlandProtocol

/// OwnTracks Recorder: `GET /api/0/locations?user=U&device=D&from=..&to=..` on the origin
/// of `/pub` (or `verify_url`), answering `{"data":[{"tst":..,"lat":..,"lon":..},..]}`.
/// `from` is always sent: without it the Recorder answers only the last 6 hours
/// (`DEFAULT_HISTORY_HOURS`). Times go as `YYYY-MM-DDTHH:MM:SS`, the first of the formats
/// the Recorder parses (UTC). One answer per range: the Recorder has no pages.
public struct RecorderReader: ReadBackReader {
    public var url: String
    public var user: String
    public var device: String
    /// `user:password` for HTTP Basic (a Recorder behind a proxy), nil for none.
    public var token: String?

    public init(url: String, user: String, device: String, token: String?) {
        self.url = url
        self.user = user
        self.device = device
        self.token = token
    }

    /// The path of the locations API on the Recorder's origin.
    public static let path = "/api/0/locations"

    public var receiverName: String { "the OwnTracks Recorder" }
    public var keepsFixTime: Bool { true }

    public func request(from: Int64, through: Int64, page: Int) -> ReceiverRequest {
        ReadBackHTTP.get(url, [("user", user), ("device", device), ("from", Self.time(from)), ("to", Self.time(through + 1))],
                         headers: ReadBackHTTP.basic(token))
    }

    public func parse(_ reply: HTTPReply, page: Int) throws(ReadBackError) -> ReadBackPage {
        let json = try ReadBackHTTP.json(reply, receiverName)
        guard let data = json["data"]?.array else { throw ReadBackError("\(receiverName)'s answer has no \"data\" list") }
        // Records of other kinds (transitions, cards) carry no lat/lon: left out.
        return ReadBackPage(points: data.compactMap { ReadBackHTTP.point(time: $0["tst"], latitude: $0["lat"], longitude: $0["lon"]) })
    }

    /// `2026-11-26T10:00:00`: the Recorder's `%Y-%m-%dT%H:%M:%S`, read as UTC.
    static func time(_ seconds: Int64) -> String {
        String(ISO8601UTC.string(from: seconds).dropLast())
    }
}
