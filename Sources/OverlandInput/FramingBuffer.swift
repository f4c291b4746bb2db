/// The bytes a framer has been given and not yet framed: the one cumulation buffer every
/// line framer uses (as swift-nio's `ByteToMessageDecoder` keeps one for its decoders).
///
/// Chunks of any size are appended at the end; what the framer has consumed is dropped
/// from the front on the next append, so the buffer holds at most one partial frame plus
/// one chunk, and a frame handed out as a slice stays valid until then.
public struct FramingBuffer: Sendable {
    /// The bytes held, the oldest first.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Drops the first `consumed` bytes (framed already; the caller moves its indices back
    /// by as much) and appends `new`.
    public mutating func append(_ new: some Collection<UInt8>, discarding consumed: Int) {
        if consumed > 0 {
            if consumed >= bytes.count {
                bytes.removeAll(keepingCapacity: true)
            } else {
                bytes.removeSubrange(0..<consumed)
            }
        }
        bytes.append(contentsOf: new)
    }

    /// Forgets everything (end of a stream).
    public mutating func reset() {
        bytes = []
    }

    public var count: Int { bytes.count }

    public subscript(range: Range<Int>) -> ArraySlice<UInt8> { bytes[range] }

    public subscript(index: Int) -> UInt8 { bytes[index] }
}
