/// What a server answered: status, headers and the body, read up to the reply limit.
public struct HTTPReply: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The headers, in the order received.
    public var headers: [ReceiverRequest.Header]
    /// The body.
    public var body: [UInt8]

    /// Creates a reply.
    public init(status: Int, headers: [ReceiverRequest.Header] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }
}
