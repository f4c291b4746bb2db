import OverlandJSON

/// Traccar: first `GET /api/devices?uniqueId=ID` (the device's numeric id), then
/// `GET /api/positions?deviceId=N&from=..&to=..`, answering a list of
/// `{"fixTime":"2026-11-26T10:00:00.000+00:00","latitude":..,"longitude":..}`. Reading
/// takes a Traccar user's credentials (`verify_token`, `user:password`), not the OsmAnd
/// port's device id. One answer per range.
public struct TraccarReader: ReadBackReader {
    public var origin: String
    public var uniqueID: String
    public var token: String?
    /// Traccar's numeric id of the device, once looked up.
    public var deviceNumber: Int?

    public init(origin: String, uniqueID: String, token: String?, deviceNumber: Int? = nil) {
        self.origin = origin
        self.uniqueID = uniqueID
        self.token = token
        self.deviceNumber = deviceNumber
    }

    public var receiverName: String { "Traccar" }
    public var keepsFixTime: Bool { true }
    /// Traccar answers the OsmAnd request as it decodes it; the position reaches the
    /// database further down its pipeline: 15 s.
    public var settleSeconds: Int64 { 15 }

    /// The reader of the Traccar device whose unique id is the destination's device id, with
    /// a Traccar user's credentials.
    public static func reader(for target: ReadBackTarget) throws(ReadBackError) -> any ReadBackReader {
        guard let readToken = target.readToken else {
            throw ReadBackError("Traccar is read with a Traccar user's credentials: set verify_token to USER:PASSWORD (--token-stdin)")
        }
        return TraccarReader(origin: target.base, uniqueID: target.deviceID, token: readToken)
    }

    public func setupRequest() -> ReceiverRequest? {
        deviceNumber == nil ? ReadBackHTTP.get(origin + "/api/devices", [("uniqueId", uniqueID)], headers: ReadBackHTTP.basic(token)) : nil
    }

    public func resolved(by reply: HTTPReply) throws(ReadBackError) -> any ReadBackReader {
        let json = try ReadBackHTTP.json(reply, receiverName)
        guard let id = json.array?.first(where: { $0["uniqueId"]?.string == uniqueID })?["id"]?.int else {
            throw ReadBackError("\(receiverName) has no device '\(PrintableText.sanitised(String(uniqueID.prefix(100)), allowLineBreaks: false))' these credentials can see")
        }
        var copy = self
        copy.deviceNumber = id
        return copy
    }

    public func request(from: Int64, through: Int64, page: Int) -> ReceiverRequest {
        ReadBackHTTP.get(origin + "/api/positions", [("deviceId", String(deviceNumber ?? 0)), ("from", ISO8601UTC.string(from: from)),
                                                     ("to", ISO8601UTC.string(from: through + 1))], headers: ReadBackHTTP.basic(token))
    }

    public func parse(_ reply: HTTPReply, page: Int) throws(ReadBackError) -> ReadBackPage {
        let json = try ReadBackHTTP.json(reply, receiverName)
        guard let list = json.array else { throw ReadBackError("\(receiverName)'s answer is not a list of positions") }
        return ReadBackPage(points: list.compactMap { ReadBackHTTP.point(time: $0["fixTime"], latitude: $0["latitude"], longitude: $0["longitude"]) })
    }
}
