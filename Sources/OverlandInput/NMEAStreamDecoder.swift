/// Bytes in, fixes out: an ``NMEALineFramer``, an ``NMEASentenceDecoder`` and a
/// ``FixAssembler`` in one push decoder, the hot path of the logger.
///
/// Push chunks as they are read (any size; the result does not depend on it), then call
/// ``finish(into:)`` at end of input, which emits the last cycle.
///
/// ```swift
/// var decoder = NMEAStreamDecoder(datePolicy: .fromStreamOnly)
/// var fixes: [Fix] = []
/// decoder.push(chunk, into: &fixes)
/// decoder.finish(into: &fixes)
/// ```
public struct NMEAStreamDecoder: Sendable {
    private var framer: NMEALineFramer
    private var decoder: NMEASentenceDecoder
    private var assembler: FixAssembler
    private var counts = DecoderStatistics()

    /// Creates a decoder with a date policy, a checksum policy and a maximum line length;
    /// `closesCyclesEarly` for live input (see ``FixAssembler``).
    public init(
        datePolicy: DatePolicy = .fromStreamOnly,
        checksumPolicy: ChecksumPolicy = .requiredOnceSeen,
        maximumLineLength: Int = NMEALineFramer.defaultMaximumLineLength,
        closesCyclesEarly: Bool = false
    ) {
        framer = NMEALineFramer(maximumLineLength: maximumLineLength)
        decoder = NMEASentenceDecoder(checksumPolicy: checksumPolicy)
        assembler = FixAssembler(datePolicy: datePolicy, closesCyclesEarly: closesCyclesEarly)
    }

    /// Everything counted so far by the framer, the sentence decoder and the assembler.
    public var statistics: DecoderStatistics {
        var total = counts
        total.add(framer.statistics)
        total.add(assembler.statistics)
        return total
    }

    /// Decodes a chunk of the stream, appending the fixes of the cycles it completes.
    public mutating func push(_ bytes: some Collection<UInt8>, into fixes: inout [Fix]) {
        framer.append(bytes)
        // One sentence value for the chunk, decoded and read in place: a sentence is a few
        // hundred bytes, and a copy per step of the way cost a tenth of the logger's time.
        var sentence = NMEASentence(kind: .rmc, talker: "")
        while let line = framer.nextLine() {
            handle(line, sentence: &sentence, into: &fixes)
        }
    }

    /// Ends the input: decodes a last unterminated sentence, appends the last cycle's fix,
    /// and resets the decoder for a new stream (statistics kept).
    public mutating func finish(into fixes: inout [Fix]) {
        if let line = framer.finish() {
            var sentence = NMEASentence(kind: .rmc, talker: "")
            handle(line, sentence: &sentence, into: &fixes)
        }
        if let fix = assembler.finish() {
            fixes.append(fix)
        }
        decoder = NMEASentenceDecoder(checksumPolicy: decoder.checksumPolicy)
    }

    /// Whether a reporting cycle is open: ``closeCycle(into:)`` would complete it.
    public var hasOpenCycle: Bool { assembler.hasOpenCycle }

    /// Completes the open reporting cycle now (the input went quiet), appending its fix.
    public mutating func closeCycle(into fixes: inout [Fix]) {
        assembler.closeCycle(into: &fixes)
    }

    private mutating func handle(_ line: ArraySlice<UInt8>, sentence: inout NMEASentence, into fixes: inout [Fix]) {
        let status = line.withUnsafeBufferPointer { decoder.decode(buffer: $0, into: &sentence) }
        switch status {
        case .sentence:
            counts.acceptedSentences += 1
            if !sentence.isChecksummed { counts.uncheckedSentences += 1 }
            assembler.add(sentence, into: &fixes)
        case .ignored:
            counts.ignoredSentences += 1
        case .badChecksum:
            counts.badChecksums += 1
        case .missingChecksum:
            counts.missingChecksums += 1
        case .malformed:
            counts.malformedSentences += 1
        }
    }
}

// MARK: - The input format

extension NMEAStreamDecoder: InputDecoder {
    public static let formatName = "nmea"
    public static let formatTitle = "NMEA 0183"
    public static let formatDescription = "NMEA 0183 sentences (a receiver, gpspipe -r, a capture)"
    /// NMEA is the fallback: it reads anything, skipping what is not a sentence.
    public static func sniff(_ prefix: ArraySlice<UInt8>, isComplete: Bool) -> Sniff { .match }
    public init(options: DecoderOptions) {
        self.init(datePolicy: options.datePolicy, closesCyclesEarly: options.closesCyclesEarly)
    }
}
