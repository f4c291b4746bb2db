import OverlandJSON

/// A server's answer to an upload, classified (protocol reference, section 2).
///
/// A batch is delivered only on a 2xx whose body is a JSON object with `"result": "ok"`,
/// or on any 2xx when the acknowledgement rule is `.any2xx` ("consider HTTP 2xx
/// successful", and the OwnTracks mode), or on exactly 200 with `.status200` (Traccar).
/// Everything else keeps the points queued. The body
/// is parsed with strict limits: a huge or deeply nested reply is not acknowledged, never
/// a crash. Text taken from the reply (`error`, `geocode.full_name`) is cleaned of control
/// characters and shortened before anyone shows it on a terminal.
public struct Reply: Sendable, Equatable {
    /// What the reply means for the batch.
    public enum Outcome: Sendable, Equatable {
        /// Acknowledged: the points may leave the queue.
        case delivered
        /// A 2xx that does not acknowledge the batch (no `"result": "ok"`, an `error`,
        /// not JSON); the reason is a lower-case phrase.
        case notAcknowledged(String)
        /// 401 or 403: the server refused the credentials.
        case refused(status: Int, reason: String)
        /// 404, 405 or 410: nothing receives uploads at this url (a wrong path, a receiver
        /// that does not take POST, an endpoint removed, a redirect, which is not followed).
        /// Retrying cannot help: the
        /// endpoint must be corrected. The points stay queued.
        case wrongEndpoint(status: Int, reason: String)
        /// Any other status (5xx, other 4xx): try again later.
        case retryable(String)
    }

    /// Which replies count as an acknowledgement.
    public enum Acknowledgement: Sendable, Equatable {
        /// A 2xx with a JSON object whose `result` is `"ok"` (the protocol).
        case resultOK
        /// Any 2xx ("consider HTTP 2xx successful", OwnTracks receivers).
        case any2xx
        /// Exactly 200, whatever the body (Traccar's OsmAnd protocol).
        case status200
    }

    /// The limits a reply body is parsed with.
    public static let parseLimits = JSONLimits(maxDepth: 16, maxBytes: 1 << 20, maxStringBytes: 64 << 10)
    /// The most characters kept of a text taken from the reply.
    public static let maximumTextLength = 200

    /// The HTTP status code.
    public var status: Int
    /// The classification.
    public var outcome: Outcome
    /// The reply's `error` (a string, or other JSON written compactly), cleaned; nil when absent.
    public var error: String?
    /// The reply's `geocode.full_name`, cleaned; nil when absent.
    public var geocodeFullName: String?
    /// The reply's `set` object, unvalidated, when the batch was delivered.
    public var set: JSONValue?

    /// Classifies a reply from its status and (already size-capped) body. `redirectLocation`
    /// is the `Location` header of a 3xx, named in the reason (the caller takes out what
    /// must not be shown: user information, query, fragment).
    public init(status: Int, body: some Collection<UInt8>, acknowledgement: Acknowledgement = .resultOK,
                redirectLocation: String? = nil) {
        self.status = status
        var parsed: JSONValue?
        var parseError: JSONError?
        if body.contains(where: { !Self.isWhitespace($0) }) {
            do {
                parsed = try JSONParser.parse(body, limits: Self.parseLimits)
            } catch {
                parseError = error
            }
        }
        if let value = parsed?["error"], !value.isNull {
            if let text = value.string {
                error = Self.cleaned(text)
            } else {
                var writer = JSONWriter()
                writer.appendValue(value)
                error = Self.cleaned(String(decoding: writer.bytes.prefix(4 * Self.maximumTextLength), as: UTF8.self))
            }
        }
        if let name = parsed?["geocode"]?["full_name"]?.string {
            geocodeFullName = Self.cleaned(name)
        }
        let detail = error.map { ": " + $0 } ?? ""
        switch status {
        case 200..<300:
            if acknowledgement == .any2xx {
                outcome = .delivered
            } else if acknowledgement == .status200 {
                outcome = status == 200 ? .delivered : .notAcknowledged("server answered \(Self.statusText(status)), not 200 ok")
            } else if let parsed, parsed["result"]?.string == "ok" {
                outcome = .delivered
            } else if let parseError {
                outcome = .notAcknowledged("reply is not json (\(parseError))" + Self.hint)
            } else if let parsed {
                if error != nil {
                    outcome = .notAcknowledged("server reported an error" + detail)
                } else if parsed.object == nil {
                    outcome = .notAcknowledged("reply is not a json object" + Self.hint)
                } else if let result = parsed["result"]?.string {
                    outcome = .notAcknowledged("reply result is '\(Self.cleaned(result))', not 'ok'")
                } else {
                    outcome = .notAcknowledged("reply has no \"result\":\"ok\"")
                }
            } else {
                outcome = .notAcknowledged("reply is empty" + Self.hint)
            }
        case 401, 403:
            outcome = .refused(status: status, reason: "server refused the credentials (\(Self.statusText(status)))" + detail)
        case 404, 405, 410:
            outcome = .wrongEndpoint(status: status, reason: "server answered \(Self.statusText(status))" + detail)
        case 300..<400:
            // Not followed (the points would go where the endpoint does not say), and no
            // retry helps: the endpoint must be set to the final url.
            let target = redirectLocation.map { " to '\(Self.cleaned(RedactedURL.shown($0)))'" } ?? ""
            outcome = .wrongEndpoint(
                status: status, reason: "server redirected\(target) (\(status)), and redirects are not followed (set the endpoint to the final url)")
        default:
            outcome = .retryable("server answered \(Self.statusText(status))" + detail)
        }
        if outcome == .delivered {
            set = parsed?["set"]
        }
    }

    private static let hint = "; if the server cannot answer {\"result\":\"ok\"}, turn on 'consider 2xx successful'"

    /// Whether the batch was acknowledged.
    public var isDelivered: Bool { outcome == .delivered }

    /// `text` without control or bidirectional-override characters (each becomes `?`),
    /// cut to `maximumTextLength` characters with an ellipsis.
    public static func cleaned(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            if count == maximumTextLength {
                result.append("…")
                break
            }
            result.append(PrintableText.isUnsafe(scalar, allowLineBreaks: false) ? "?" : scalar)
            count += 1
        }
        return String(result)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// "404 not found", or the bare number for a status without a known phrase.
    static func statusText(_ status: Int) -> String {
        let phrase = reasonPhrase(status)
        return phrase.isEmpty ? String(status) : "\(status) \(phrase)"
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "bad request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not found"
        case 405: "method not allowed"
        case 410: "gone"
        case 408: "request timeout"
        case 413: "payload too large"
        case 422: "unprocessable content"
        case 429: "too many requests"
        case 500: "internal server error"
        case 502: "bad gateway"
        case 503: "service unavailable"
        case 504: "gateway timeout"
        default: ""
        }
    }
}
