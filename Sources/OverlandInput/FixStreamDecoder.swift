/// A push decoder from the bytes of a stream to fixes: ``NMEAStreamDecoder`` and
/// ``GPSDStreamDecoder`` both are, so a reader can hold either after ``InputFormat/detect(_:isComplete:)``.
public protocol FixStreamDecoder: Sendable {
    /// Decodes a chunk of the stream, appending the fixes it completes.
    mutating func push(_ bytes: some Collection<UInt8>, into fixes: inout [Fix])
    /// Ends the input, appending the last fix, and resets the decoder (statistics kept).
    mutating func finish(into fixes: inout [Fix])
    /// Whether a fix waits for the rest of its reporting cycle.
    var hasOpenCycle: Bool { get }
    /// Completes the open cycle now (the input went quiet), appending its fix.
    mutating func closeCycle(into fixes: inout [Fix])
    /// What the decoder read, skipped and emitted so far.
    var statistics: DecoderStatistics { get }
}

extension NMEAStreamDecoder: FixStreamDecoder {}
extension GPSDStreamDecoder: FixStreamDecoder {}
