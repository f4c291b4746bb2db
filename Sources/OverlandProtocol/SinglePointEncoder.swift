/// The encoder of the receivers that take one position per request (OwnTracks, Traccar):
/// it keeps the first location appended and refuses every other line, and has the
/// receiver write the request for that point. The body is only written by `finish`, so
/// `byteCount` stays 0 (one point never reaches the body size cap).
struct SinglePointEncoder: RequestEncoder {
    /// Writes the request for `point`; `urlPoint` fills the url's placeholders (the point
    /// the sync names as newest, else `point` itself).
    typealias Write = (_ point: LocationFeature, _ urlPoint: LocationFeature) -> ReceiverRequest

    private let wireProtocol: WireProtocol
    private let write: Write
    private var point: LocationFeature?

    init(_ wireProtocol: WireProtocol, write: @escaping Write) {
        self.wireProtocol = wireProtocol
        self.write = write
    }

    mutating func append(_ line: ArraySlice<UInt8>) -> Bool {
        guard point == nil, let decoded = try? LocationFeature(jsonLine: line) else { return false }
        point = decoded
        return true
    }

    var count: Int { point == nil ? 0 : 1 }
    var byteCount: Int { 0 }

    mutating func finish(current: ArraySlice<UInt8>?, newest: LocationFeature?) -> ReceiverRequest {
        guard let point else { preconditionFailure("\(wireProtocol): a request needs one location") }
        return write(point, newest ?? point)
    }

    mutating func reset() { point = nil }
}
