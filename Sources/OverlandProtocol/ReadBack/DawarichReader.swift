import OverlandJSON

/// Dawarich: `GET /api/v1/points?api_key=K&start_at=..&end_at=..&page=N&per_page=M&order=asc`,
/// answering a list of `{"timestamp":..,"latitude":..,"longitude":..}` (coordinates as
/// numbers or strings) with `X-Current-Page` and `X-Total-Pages` headers. Dawarich keeps a
/// user's points, not a device's: the api key names the user.
public struct DawarichReader: ReadBackReader {
    public var url: String
    public var apiKey: String
    public var perPage: Int

    public init(url: String, apiKey: String, perPage: Int = 100) {
        self.url = url
        self.apiKey = apiKey
        self.perPage = perPage
    }

    public static let path = "/api/v1/points"
    /// More pages than this for one range is an answer not trusted.
    static let maximumPages = 10_000

    public var receiverName: String { "Dawarich" }
    public var keepsFixTime: Bool { true }
    /// Dawarich stores an Overland batch in a background job (`Overland::BatchCreatingJob`)
    /// after it answers: its queue may lag, 30 s.
    public var settleSeconds: Int64 { 30 }

    /// The reader of a Dawarich user's points: the api key (`verify_token`, else the token
    /// sent with) names the user; Dawarich names no device.
    public static func reader(for target: ReadBackTarget) throws(ReadBackError) -> any ReadBackReader {
        guard let key = target.readToken ?? target.token else {
            throw ReadBackError("Dawarich is read with its api key: set token (or verify_token)")
        }
        return DawarichReader(url: target.base + path, apiKey: key)
    }

    public func request(from: Int64, through: Int64, page: Int) -> ReceiverRequest {
        ReadBackHTTP.get(url, [("api_key", apiKey), ("start_at", ISO8601UTC.string(from: from)),
                               ("end_at", ISO8601UTC.string(from: through)), ("page", String(page + 1)),
                               ("per_page", String(perPage)), ("order", "asc")])
    }

    public func parse(_ reply: HTTPReply, page: Int) throws(ReadBackError) -> ReadBackPage {
        let json = try ReadBackHTTP.json(reply, receiverName)
        guard let list = json.array else { throw ReadBackError("\(receiverName)'s answer is not a list of points") }
        let points = list.compactMap { ReadBackHTTP.point(time: $0["timestamp"], latitude: $0["latitude"], longitude: $0["longitude"]) }
        let total = reply.header("X-Total-Pages").flatMap { Int($0.trimmingCharacters(in: " ")) } ?? 1
        return ReadBackPage(points: points, hasMore: page + 1 < min(total, Self.maximumPages) && !list.isEmpty)
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}
