import OverlandJSON

/// OwnTracks Recorder: `GET /api/0/locations?user=U&device=D&from=..&to=..&fields=tst,lat,lon`
/// on the origin of `/pub` (or `verify_url`), answering `{"data":[{"tst":..,"lat":..,"lon":..},..]}`.
/// As the Recorder (owntracks/recorder at ae2fd296) does it:
/// - both bounds are exclusive (storage.c `candidate_line`: `secs <= s_lo || secs >= s_hi`
///   is skipped), so `from` is the second before the first point and `to` the second after
///   the last; `from` is always sent: without it the Recorder answers only the last 6 hours
///   (`DEFAULT_HISTORY_HOURS`). Times go as `YYYY-MM-DDTHH:MM:SS`, the first of the formats
///   the Recorder parses (UTC).
/// - a message is filed under its user and device with every byte that is not an ASCII
///   letter or digit made `-` and letters lowered (util.c `pathn`, `ut_lower`), while the
///   API only lowers what it is asked (storage.c `lister`): the reader asks for the names
///   as filed (`filed(_:)`), so `My Van` is read as `my-van`.
/// - `fields` keeps only the three members compared (storage.c `candidate_line`): a point
///   is about 50 bytes of answer instead of 300. The Recorder has no pages, and every read
///   costs a scan of the month: fewer, wider reads (`pointsPerRead`).
public struct RecorderReader: ReadBackReader {
    public var url: String
    /// The user and device as the Recorder files them.
    public var user: String
    public var device: String
    /// `user:password` for HTTP Basic (a Recorder behind a proxy), nil for none.
    public var token: String?

    /// A reader of what the Recorder filed for `user` and `device` (as sent: the reader
    /// asks for them as filed).
    public init(url: String, user: String, device: String, token: String?) {
        self.url = url
        self.user = Self.filed(user)
        self.device = Self.filed(device)
        self.token = token
    }

    /// The path of the locations API on the Recorder's origin.
    public static let path = "/api/0/locations"

    public var receiverName: String { "the OwnTracks Recorder" }
    public var keepsFixTime: Bool { true }
    /// The OwnTracks Recorder files a `/pub` location before it answers, but fed by a
    /// broker it stores what the broker delivers when it delivers it: 30 s.
    public var settleSeconds: Int64 { 30 }

    /// The reader of what the Recorder filed for the user and device the destination sends
    /// as (`ReadBackTarget.ownTracksIdentity`), with `verify_token`, else the token sent with.
    public static func reader(for target: ReadBackTarget) throws(ReadBackError) -> any ReadBackReader {
        let identity = target.ownTracksIdentity
        return RecorderReader(url: target.base + path, user: identity.user ?? "", device: identity.device ?? "",
                              token: target.readToken ?? target.token)
    }
    /// Every read scans each month file the range touches, line by line (storage.c
    /// `locations`): 7 s a read for 100,000 points in a month on a loaded two-core machine,
    /// whether it answers 500 points or 10,000. 10,000 points a read is about 500 KB of
    /// answer (with `fields`) and 4 MB of journal lines held for the comparison.
    public var pointsPerRead: Int { 10_000 }

    public func request(from: Int64, through: Int64, page: Int) -> ReceiverRequest {
        ReadBackHTTP.get(url, [("user", user), ("device", device), ("from", Self.time(from - 1)), ("to", Self.time(through + 1)),
                               ("fields", "tst,lat,lon")],
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

    /// `name` as the Recorder files it (util.c `ut_lower`, in the C locale it runs in):
    /// ASCII letters lowered, digits kept, every other byte `-` (a UTF-8 letter of two
    /// bytes is two dashes).
    public static func filed(_ name: String) -> String {
        String(decoding: name.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 32
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): byte
            default: UInt8(ascii: "-")
            }
        }, as: UTF8.self)
    }
}
