/// Whether a stream holds any input format's own units (checksummed sentences, frames,
/// reports), for a serial port's rate detection: every format of ``InputDecoders/all``
/// reads the same bytes, and the one that recognised most counts. At a wrong rate a
/// receiver's bytes are noise, which no format recognises.
public struct FormatRecogniser {
    private var decoders: [any InputDecoder]
    private var discarded: [Fix] = []

    public init() {
        decoders = InputDecoders.all.map { $0.init(options: DecoderOptions()) }
    }

    public mutating func push(_ bytes: some Collection<UInt8>) {
        for index in decoders.indices {
            decoders[index].push(bytes, into: &discarded)
        }
        discarded.removeAll(keepingCapacity: true)
    }

    /// The most units one format recognised so far.
    public var recognised: Int { decoders.map { $0.statistics.recognisedUnits }.max() ?? 0 }
}
