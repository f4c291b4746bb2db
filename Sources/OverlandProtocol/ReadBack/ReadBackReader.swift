import OverlandJSON

/// Asks one kind of receiver "what do you hold for this device between T0 and T1": writes
/// the GET requests (the caller sends them through its `Transport`) and reads the answers
/// into `StoredPoint`s. A plain value: no I/O, no clock. docs/receivers.md cites each
/// receiver's source for the requests and answers.
public protocol ReadBackReader: Sendable {
    /// The receiver's name, for messages.
    var receiverName: String { get }
    /// Whether the receiver keeps the fix's own second. Home Assistant keeps only when it
    /// recorded the state: its points are matched by position, and read up to now.
    var keepsFixTime: Bool { get }
    /// Seconds the receiver may take, after acknowledging a point, before its read API
    /// shows it (a commit interval, a job queue): nothing is read back, nor judged missing,
    /// sooner (each reader's file gives its own, and why). Chosen well past what the
    /// receiver's source says: a point judged missing too early is sent again and, twice
    /// missed, called refused.
    var settleSeconds: Int64 { get }
    /// A request to make before reading (Traccar: the device's numeric id), nil for none.
    func setupRequest() -> ReceiverRequest?
    /// This reader once the setup request's answer is known.
    func resolved(by reply: HTTPReply) throws(ReadBackError) -> any ReadBackReader
    /// The request for page `page` (from 0) of the points held from `from` through
    /// `through` (Unix seconds, both included).
    func request(from: Int64, through: Int64, page: Int) -> ReceiverRequest
    /// The points in one page's answer (its status already known to be 2xx).
    func parse(_ reply: HTTPReply, page: Int) throws(ReadBackError) -> ReadBackPage
    /// Journal points compared against one read of the receiver (500 unless the receiver
    /// says otherwise): a receiver whose every read costs the same whatever its width (the
    /// Recorder scans the month's file) is read in fewer, wider reads.
    var pointsPerRead: Int { get }
}

extension ReadBackReader {
    public func setupRequest() -> ReceiverRequest? { nil }
    public func resolved(by reply: HTTPReply) throws(ReadBackError) -> any ReadBackReader { self }
    public var pointsPerRead: Int { 500 }
}

/// What every reader shares: the GET, the query, the JSON, the numbers and times.
enum ReadBackHTTP {
    /// The most a read-back answer may hold: the parser's bound on hostile input.
    static let limits = JSONLimits(maxDepth: 16, maxBytes: 32 << 20, maxStringBytes: 64 << 10)

    /// A GET of `base` with `query` (values percent-encoded) added after any query it has.
    static func get(_ base: String, _ query: [(String, String)], headers: [ReceiverRequest.Header] = []) -> ReceiverRequest {
        var url = base
        for (name, value) in query {
            url += (url.contains("?") ? "&" : "?") + name + "=" + URLTemplate.percentEncoded(value)
        }
        var request = ReceiverRequest(url: url, headers: headers + [ReceiverRequest.Header("Accept", "application/json")], body: [])
        request.method = "GET"
        // An answer holds every point of the range asked: as much as the parser takes, not
        // the 1 MiB an acknowledgement may have (a Recorder's day of 4,000 points is more).
        request.replyLimit = limits.maxBytes
        return request
    }

    /// `scheme://host[:port]` of `url` (a url `ReceiverURL.checkHTTP` accepted).
    static func origin(of url: String) -> String {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return url }
        let afterScheme = url.index(colon, offsetBy: 3)
        let host = url[afterScheme...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // User information never travels to a reader's url.
        let bare = host.split(separator: "@", omittingEmptySubsequences: false).last ?? host
        return String(url[..<afterScheme]) + bare
    }

    /// The answer's JSON, or an error naming the receiver.
    static func json(_ reply: HTTPReply, _ receiver: String) throws(ReadBackError) -> JSONValue {
        do {
            return try JSONParser.parse(reply.body, limits: limits)
        } catch {
            throw ReadBackError("\(receiver)'s answer is not JSON (\(error))")
        }
    }

    /// A coordinate: a JSON number or a numeric string (Dawarich sends strings), finite and
    /// within `range`; nil otherwise.
    static func degrees(_ value: JSONValue?, within range: ClosedRange<Double>) -> Double? {
        let number = value?.double ?? value?.string.flatMap { Double($0) }
        guard let number, number.isFinite, range.contains(number) else { return nil }
        return number
    }

    /// Unix seconds: a number (whole or not, cut to its second) or an ISO 8601 time
    /// (`2026-11-26T10:00:00Z`, with or without fraction, `Z` or `+HH:MM`); nil when not a time.
    static func seconds(_ value: JSONValue?) -> Int64? {
        if let number = value?.double {
            guard number.isFinite, number >= Double(ISO8601UTC.representableSeconds.lowerBound),
                  number <= Double(ISO8601UTC.representableSeconds.upperBound) else { return nil }
            return Int64(number.rounded(.down))
        }
        guard let text = value?.string else { return nil }
        return isoSeconds(text)
    }

    /// An ISO 8601 time with an optional fraction and a `Z` or `±HH:MM` offset.
    static func isoSeconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes.count <= 40 else { return nil }
        guard let base = ISO8601UTC.parse(bytes[0..<19] + Array("Z".utf8)) else { return nil }
        var index = 19
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        }
        let zone = bytes[index...]
        if zone.elementsEqual("Z".utf8) { return base }
        guard zone.count == 6, zone.first == UInt8(ascii: "+") || zone.first == UInt8(ascii: "-"),
              zone[zone.startIndex + 3] == UInt8(ascii: ":"),
              let hours = Int(String(decoding: zone[(zone.startIndex + 1)..<(zone.startIndex + 3)], as: UTF8.self)),
              let minutes = Int(String(decoding: zone[(zone.startIndex + 4)...], as: UTF8.self)),
              hours < 24, minutes < 60 else { return nil }
        let offset = Int64(hours * 3600 + minutes * 60)
        return zone.first == UInt8(ascii: "+") ? base - offset : base + offset
    }

    /// A point from a latitude, a longitude and a time; nil when any is missing or out of range.
    static func point(time: JSONValue?, latitude: JSONValue?, longitude: JSONValue?, device: String? = nil) -> StoredPoint? {
        guard let seconds = seconds(time), let lat = degrees(latitude, within: -90...90),
              let lon = degrees(longitude, within: -180...180) else { return nil }
        return StoredPoint(time: seconds, latitude: lat, longitude: lon, device: device)
    }

    /// `Authorization: Basic` from `user:password`, or nothing without a token.
    static func basic(_ token: String?) -> [ReceiverRequest.Header] {
        guard let token, !token.isEmpty else { return [] }
        return [ReceiverRequest.Header("Authorization", OwnTracksCredentials(token: token).authorizationHeader)]
    }

    /// `Authorization: Bearer`, or nothing without a token.
    static func bearer(_ token: String?) -> [ReceiverRequest.Header] {
        guard let token, !token.isEmpty else { return [] }
        return [ReceiverRequest.Header("Authorization", "Bearer " + token)]
    }
}
