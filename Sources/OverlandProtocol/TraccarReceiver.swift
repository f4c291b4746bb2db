/// Traccar's OsmAnd protocol, as Traccar Client 9 speaks it: one position per request, a
/// JSON body (`TraccarPosition`) posted to Traccar's OsmAnd port (5055 by default).
///
/// - Batch rule: every location in journal order, one per request (Traccar takes one
///   position per request); with the `latest` logging mode, the newest point only.
///   Trips, visits and actions are skipped.
/// - Encoding: `Content-Type: application/json` (it is what selects the decoder's JSON
///   branch), the configured device id as `device_id`. Traccar's OsmAnd port takes no
///   credentials; a configured token still goes as `Authorization: Bearer`, for a proxy
///   in front of it.
/// - Acknowledgement: status 200, the only success the decoder sends; it answers 400 to
///   a request it cannot read and 404 to a device id it does not know (a configuration
///   error: the device must be added in Traccar first).
/// - Connections: requests follow one another on one keep-alive connection (the
///   transport's pool holds one connection per host), so a backlog drains at the speed
///   of round trips, not of TCP handshakes.
public struct TraccarReceiver: Receiver {
    public let options: ReceiverOptions

    public init(options: ReceiverOptions) {
        self.options = options
    }

    public var wireProtocol: WireProtocol { .traccar }

    public var batchRule: BatchRule { options.newestOnly ? .newestOnly : .onePerRequest }

    public var acknowledgement: Reply.Acknowledgement { .status200 }

    public func makeEncoder() -> any RequestEncoder {
        let template = URLTemplate(options.endpoint)
        return SinglePointEncoder(.traccar) { point, urlPoint in request(for: point, urlPoint: urlPoint, template: template) }
    }

    /// One position's request: its JSON body, and the token (if any) for a proxy in front.
    func request(for point: LocationFeature, urlPoint: LocationFeature, template: URLTemplate) -> ReceiverRequest {
        let body = TraccarPosition(point: point, deviceID: options.deviceID).jsonBody()
        var headers = options.commonHeaders
        if let token = options.token, options.profile.tokenInHeader {
            headers.append(.init("Authorization", "Bearer " + token))
        }
        return ReceiverRequest(url: options.url(template: template, point: urlPoint), headers: headers, body: body)
    }
}

extension WireProtocol {
    /// Traccar's OsmAnd protocol, as Traccar Client sends it: one position per request;
    /// 200 acknowledges.
    public static let traccar = WireProtocol(declaring: "traccar")
}
