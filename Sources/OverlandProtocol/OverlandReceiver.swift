/// The Overland protocol (protocol reference, sections 1 to 5): `{"locations":[...]}`
/// batches of `batch_size` stored lines, oldest first, with `current` while a long backlog
/// drains and `trip` while a trip runs; the `latest` logging mode sends the newest point
/// alone. Stored lines go into the body as they are (or as the profile rewrites them), so
/// a resent batch is byte for byte the same.
///
/// Acknowledged by a 2xx whose body is `{"result":"ok"}` (Dawarich answers 201, which
/// counts), or by any 2xx with "consider HTTP 2xx successful".
public struct OverlandReceiver: Receiver {
    public let options: ReceiverOptions

    public init(options: ReceiverOptions) {
        self.options = options
    }

    public var wireProtocol: WireProtocol { .overland }

    public var batchRule: BatchRule { options.newestOnly ? .newestOnly : .batches(size: options.batchSize) }

    public var acknowledgement: Reply.Acknowledgement { options.consider2xxSuccessful ? .any2xx : .resultOK }

    public func makeEncoder() -> any RequestEncoder {
        let capacity = options.newestOnly ? 2048 : min(options.batchSize * 640, 4 << 20) + 1024
        return Encoder(options: options, body: RequestBodyWriter(reservingCapacity: capacity, profile: options.profile))
    }

    struct Encoder: RequestEncoder {
        let options: ReceiverOptions
        let template: URLTemplate
        var body: RequestBodyWriter
        /// The last line added, kept only for a url with placeholders (a stored line can
        /// otherwise hold on to the journal reader's buffer).
        var lastLine: [UInt8]?

        init(options: ReceiverOptions, body: RequestBodyWriter) {
            self.options = options
            self.body = body
            template = URLTemplate(options.endpoint)
        }

        mutating func append(_ line: ArraySlice<UInt8>) -> Bool {
            body.appendLocation(line)
            if template.hasPlaceholders { lastLine = Array(line) }
            return true
        }

        var count: Int { body.locationCount }
        var byteCount: Int { body.bytes.count }

        mutating func finish(current: ArraySlice<UInt8>?, newest: LocationFeature?) -> ReceiverRequest {
            body.finish(current: current, trip: options.trip)
            var point = newest
            if point == nil, template.hasPlaceholders, let lastLine { point = try? LocationFeature(jsonLine: lastLine) }
            var headers = options.commonHeaders
            if let token = options.token, options.profile.tokenInHeader {
                headers.append(.init("Authorization", "Bearer " + token))
            }
            return ReceiverRequest(url: options.url(template: template, point: point), headers: headers, body: body.bytes)
        }

        mutating func reset() {
            body.reset()
            lastLine = nil
        }
    }
}

extension WireProtocol {
    /// The Overland protocol: `{"locations":[...]}` batches, acknowledged by `{"result":"ok"}`.
    public static let overland = WireProtocol(declaring: "overland")
}
