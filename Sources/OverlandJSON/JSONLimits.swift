/// Bounds the parser enforces, so that hostile input costs bounded memory and stack.
public struct JSONLimits: Sendable, Equatable {
    /// The deepest nesting of arrays and objects allowed; the top-level container is depth 1.
    ///
    /// The parser itself never recurses, but destroying or comparing a `JSONValue` does,
    /// one level per nesting level: keep this in the hundreds at most.
    public var maxDepth: Int
    /// The largest document accepted, in bytes.
    public var maxBytes: Int
    /// The longest string accepted, counted in encoded bytes between the quotes.
    public var maxStringBytes: Int

    /// Creates limits; the defaults suit any record or report this project reads.
    public init(maxDepth: Int = 64, maxBytes: Int = 16 << 20, maxStringBytes: Int = 1 << 20) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
        self.maxStringBytes = maxStringBytes
    }
}
