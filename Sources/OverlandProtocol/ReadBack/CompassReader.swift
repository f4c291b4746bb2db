import OverlandJSON

/// Compass: `GET /api/query?token=READ&start=..&end=..&format=full` with the database's
/// read token, answering `{"locations":[Feature,..]}`: each the GeoJSON Feature as sent
/// (`geometry.coordinates` [lon, lat], `properties.timestamp`, `properties.device_id`).
/// A Compass database holds every device that writes to it; the device is in each point.
public struct CompassReader: ReadBackReader {
    public var origin: String
    public var readToken: String

    public init(origin: String, readToken: String) {
        self.origin = origin
        self.readToken = readToken
    }

    public var receiverName: String { "Compass" }
    public var keepsFixTime: Bool { true }
    /// Compass writes a location to its database in the request that answers it: 15 s
    /// covers a proxy or a slow disk.
    public var settleSeconds: Int64 { 15 }

    /// The reader of a Compass database: the read token names it, and its answer names each
    /// point's device.
    public static func reader(for target: ReadBackTarget) throws(ReadBackError) -> any ReadBackReader {
        guard let readToken = target.readToken else {
            throw ReadBackError("Compass is read with the database's read token: set verify_token (--token-stdin)")
        }
        return CompassReader(origin: target.base, readToken: readToken)
    }

    public func request(from: Int64, through: Int64, page: Int) -> ReceiverRequest {
        ReadBackHTTP.get(origin + "/api/query", [("token", readToken), ("start", ISO8601UTC.string(from: from)),
                                                 ("end", ISO8601UTC.string(from: through)), ("format", "full")])
    }

    public func parse(_ reply: HTTPReply, page: Int) throws(ReadBackError) -> ReadBackPage {
        let json = try ReadBackHTTP.json(reply, receiverName)
        if let error = json["error"]?.string { throw ReadBackError("Compass answered '\(PrintableText.sanitised(String(error.prefix(100)), allowLineBreaks: false))'") }
        guard let list = json["locations"]?.array else { throw ReadBackError("Compass's answer has no \"locations\" list") }
        return ReadBackPage(points: list.compactMap { feature in
            let coordinates = feature["geometry"]?["coordinates"]
            return ReadBackHTTP.point(time: feature["properties"]?["timestamp"], latitude: coordinates?[1],
                                      longitude: coordinates?[0], device: feature["properties"]?["device_id"]?.string)
        })
    }
}
