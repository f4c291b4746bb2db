/// A receiver: what one wire protocol does with the journal's stored lines. It knows
///
/// - its batch rule: how stored records are grouped into requests (`BatchRule`);
/// - its encoding: stored lines in, a request out (url, headers, body), written by the
///   `RequestEncoder` it makes, with the destination's `ReceiverProfile` applied there, at
///   send time, to whatever the journal holds;
/// - its acknowledgement: which replies let the points leave the queue.
///
/// The sync only iterates the journal by the batch rule and hands each record line to the
/// encoder. Adding a protocol is one file with its receiver and one line in `Receivers`.
public protocol Receiver: Sendable {
    /// The protocol this receiver speaks.
    var wireProtocol: WireProtocol { get }
    /// How records are grouped into requests.
    var batchRule: BatchRule { get }
    /// Which replies acknowledge a request.
    var acknowledgement: Reply.Acknowledgement { get }
    /// An empty request under construction. The sync keeps two and uses them in turn
    /// (`reset` between uses), so that a body's storage is reused, not allocated again.
    func makeEncoder() -> any RequestEncoder
}

/// How a receiver wants stored records grouped into requests.
public enum BatchRule: Sendable, Equatable {
    /// Up to `size` records per request, oldest first, every kind of record (trips,
    /// visits and actions travel with the locations); while more than twice `size`
    /// records wait, the request also carries `current`, the newest stored point
    /// (protocol reference, sections 1 and 3).
    case batches(size: Int)
    /// Only the newest location by time, alone; every other waiting record is skipped
    /// (counted as skipped, never as sent).
    case newestOnly
    /// Every location, one per request, in journal order; records that are not locations
    /// (trips, visits, actions) are skipped.
    case onePerRequest
}

/// One request being written from stored record lines (each one JSON object, as the
/// journal holds it).
public protocol RequestEncoder {
    /// Adds one stored line; false when this receiver does not carry such a record (not a
    /// location, for a receiver of positions): the line is then left out.
    mutating func append(_ line: ArraySlice<UInt8>) -> Bool
    /// Records added so far.
    var count: Int { get }
    /// Body bytes written so far (for the body size cap).
    var byteCount: Int { get }
    /// The finished request. `current` is the newest stored point's line when the batch
    /// rule asks for it; `newest` is the point for url placeholders (`%LAT`...), nil to use
    /// the last record added.
    mutating func finish(current: ArraySlice<UInt8>?, newest: LocationFeature?) -> ReceiverRequest
    /// Empties the encoder for the next request, keeping its storage.
    mutating func reset()
}

/// What a destination tells its receiver: where, as whom, and with which quirks.
public struct ReceiverOptions: Sendable, Equatable {
    /// The url, possibly with placeholders (`%TS`, `%LAT`...).
    public var endpoint: String
    /// The token; nil when none is configured (never empty).
    public var token: String?
    /// The configured device id (`user/device` for OwnTracks receivers).
    public var deviceID: String
    /// The `User-Agent` header.
    public var userAgent: String
    /// The receiver's quirks, applied as each request is written.
    public var profile: ReceiverProfile
    /// The active trip as one JSON object (Overland's `trip`), nil when none.
    public var trip: [UInt8]?
    /// Records per request where the protocol batches.
    public var batchSize: Int
    /// Only the newest point is sent (the `latest` and `owntracks` logging modes).
    public var newestOnly: Bool
    /// Any 2xx acknowledges an Overland batch ("consider HTTP 2xx successful").
    public var consider2xxSuccessful: Bool

    /// Options with the protocol's defaults.
    public init(endpoint: String, token: String? = nil, deviceID: String = "", userAgent: String = "overland-sync",
                profile: ReceiverProfile = .none, trip: [UInt8]? = nil, batchSize: Int = 200, newestOnly: Bool = false,
                consider2xxSuccessful: Bool = false) {
        self.endpoint = endpoint
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.deviceID = deviceID
        self.userAgent = userAgent
        self.profile = profile
        self.trip = trip
        self.batchSize = batchSize
        self.newestOnly = newestOnly
        self.consider2xxSuccessful = consider2xxSuccessful
    }

    /// The headers every receiver sends: a JSON body, and who sends it.
    var commonHeaders: [ReceiverRequest.Header] {
        [.init("Content-Type", "application/json"), .init("User-Agent", userAgent)]
    }

    /// The url for a request about `point`: placeholders expanded (when there are any and
    /// a point to fill them), then the profile's query parameters added.
    func url(template: URLTemplate, point: LocationFeature?, identity: OwnTracksIdentity? = nil) -> String {
        let expanded = template.hasPlaceholders ? template.expanded(with: point) : endpoint
        return profile.url(expanded, token: token, identity: identity)
    }
}
