import OverlandJSON

/// One HTTP request as a receiver wants it: a POST of a JSON body written by its
/// `RequestEncoder`, or a read-back's GET (`ReadBackReader`, empty body).
public struct ReceiverRequest: Sendable, Equatable {
    /// One header line.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The method: `POST`, or `GET` for reading back.
    public var method = "POST"
    /// The URL, placeholders expanded.
    public var url: String
    /// The headers, in the order they are sent.
    public var headers: [Header]
    /// The JSON body.
    public var body: [UInt8]
    /// The most bytes of reply taken for this request, nil for the transport's own limit
    /// (a receiver's acknowledgement is small; a read-back's answer holds the points asked).
    public var replyLimit: Int?

    /// Creates a request.
    public init(url: String, headers: [Header], body: [UInt8]) {
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The value of the first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// The request with `secret` hidden wherever it appears in the URL (Compass takes the
    /// token in the query string), the URL shown as `RedactedURL` shows every URL, and the
    /// credentials of `Authorization` replaced by `<redacted>`; for `--dry-run` and logs.
    public func redacted(secret: String?) -> ReceiverRequest {
        var copy = self
        copy.url = RedactedURL.shown(Self.replacing(secret, in: url))
        copy.headers = headers.map { header in
            guard header.name.lowercased() == "authorization" else { return header }
            let scheme = header.value.prefix { $0 != " " }
            return Header(header.name, scheme + " <redacted>")
        }
        return copy
    }

    /// The request as text, HTTP/1.1 style: request line, headers, blank line, body.
    public var displayText: String {
        var text = "\(method) \(url)\n"
        for header in headers {
            text += "\(header.name): \(header.value)\n"
        }
        text += "\n"
        text += String(decoding: body, as: UTF8.self)
        return text
    }

    /// `text` with every copy of `secret`, as is and percent-encoded, replaced by `<redacted>`.
    public static func replacing(_ secret: String?, in text: String) -> String {
        guard let secret, !secret.isEmpty else { return text }
        var text = text.replacing(secret, with: RedactedURL.replacement)
        let encoded = percentEncodedSecret(secret)
        if encoded != secret { text = text.replacing(encoded, with: RedactedURL.replacement) }
        return text
    }

    private static func percentEncodedSecret(_ secret: String) -> String {
        var output = ""
        for byte in secret.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                output += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return output
    }
}
