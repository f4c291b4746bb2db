/// OwnTracks over HTTP (protocol reference, section 6): one OwnTracks location message per
/// request (`OwnTracksLocation`), as OwnTracks Recorder's `/pub` and Home Assistant's
/// OwnTracks webhook receive them.
///
/// - Batch rule: with logging mode `all`, every location in journal order, one per
///   request; with `latest` or `owntracks` (the Overland protocol's OwnTracks logging
///   mode), the newest point only. Trips, visits and actions are not locations and are
///   skipped.
/// - Encoding: the message in the body; real HTTP Basic authentication from a
///   `user:password` token; the user and device in `X-Limit-U` and `X-Limit-D`, which
///   Recorder and Home Assistant read when a message has no usable topic. The profile may
///   add the token or the user and device to the query, or complete the topic.
/// - Acknowledgement: any 2xx. Recorder and Home Assistant answer with a JSON array (the
///   friends' positions, often `[]`), never `{"result":"ok"}`.
public struct OwnTracksReceiver: Receiver {
    public let options: ReceiverOptions

    public init(options: ReceiverOptions) {
        self.options = options
    }

    public var wireProtocol: WireProtocol { .owntracks }

    public var batchRule: BatchRule { options.newestOnly ? .newestOnly : .onePerRequest }

    public var acknowledgement: Reply.Acknowledgement { .any2xx }

    public func makeEncoder() -> any RequestEncoder {
        SinglePointEncoder(.owntracks, write: Writer(options: options).request(for:urlPoint:))
    }

    /// Writes one location's request; what depends on the options alone (the url template,
    /// the credentials, the identity) is worked out once, when the encoder is made.
    struct Writer {
        let options: ReceiverOptions
        let template: URLTemplate
        let credentials: OwnTracksCredentials?
        let identity: OwnTracksIdentity

        init(options: ReceiverOptions) {
            self.options = options
            template = URLTemplate(options.endpoint)
            // A profile that sends the token elsewhere (dawarich: an API key in the query)
            // makes no Basic credentials of it, and no user name for `X-Limit-U` either.
            credentials = options.profile.tokenInHeader ? options.token.map(OwnTracksCredentials.init(token:)) : nil
            identity = OwnTracksIdentity(deviceID: options.deviceID, fallbackUser: credentials?.user)
        }

        func request(for point: LocationFeature, urlPoint: LocationFeature) -> ReceiverRequest {
            let sentIdentity = options.profile.ownTracksIdentity(identity)
            let body = OwnTracksLocation(point: point, identity: sentIdentity).jsonBody()
            var headers = options.commonHeaders
            if let credentials {
                headers.append(.init("Authorization", credentials.authorizationHeader))
            }
            if let user = sentIdentity.user { headers.append(.init("X-Limit-U", user)) }
            if let device = sentIdentity.device { headers.append(.init("X-Limit-D", device)) }
            let url = options.url(template: template, point: urlPoint, identity: sentIdentity)
            return ReceiverRequest(url: url, headers: headers, body: body)
        }
    }
}

extension WireProtocol {
    /// OwnTracks over HTTP: one location message per request (OwnTracks Recorder, Home
    /// Assistant's OwnTracks integration); any 2xx acknowledges.
    public static let owntracks = WireProtocol(declaring: "owntracks")
}
