/// One input format: a push decoder from the bytes of a stream to fixes, with its own
/// statistics, that can tell from a stream's first bytes whether the stream is its format.
///
/// Every format the logger reads is one type conforming to this protocol, in one file,
/// listed once in ``InputDecoders/all``: adding a format is writing that file and adding
/// its line to the table.
public protocol InputDecoder: FixStreamDecoder {
    /// The name `--input` takes (`nmea`, `gpsd`, `ubx`).
    static var formatName: String { get }
    /// What the format is, for help and messages.
    static var formatDescription: String { get }
    /// Whether a stream starting with `prefix` is this format; ``Sniff/needMore`` while
    /// `prefix` does not decide yet (`isComplete`: the stream has ended, decide now).
    static func sniff(_ prefix: ArraySlice<UInt8>, isComplete: Bool) -> Sniff
    /// A decoder for one stream.
    init(options: DecoderOptions)
}

/// A sniffer's answer.
public enum Sniff: Sendable, Equatable {
    case match, noMatch, needMore
}

/// What every decoder is created with.
public struct DecoderOptions: Sendable {
    /// Where dates come from before the stream states one.
    public var datePolicy: DatePolicy
    /// Live input: complete reporting cycles as early as they can be known complete.
    public var closesCyclesEarly: Bool

    public init(datePolicy: DatePolicy = .fromStreamOnly, closesCyclesEarly: Bool = false) {
        self.datePolicy = datePolicy
        self.closesCyclesEarly = closesCyclesEarly
    }
}

/// The input formats, in sniffing order: the first whose sniffer matches a stream's first
/// bytes decodes it; NMEA, last, takes everything else (it skips what it cannot read).
public enum InputDecoders {
    public static let all: [any InputDecoder.Type] = [
        GPSDStreamDecoder.self,
        UBXStreamDecoder.self,
        NMEAStreamDecoder.self,
    ]

    /// The format named `name`, if any.
    public static func named(_ name: String) -> (any InputDecoder.Type)? {
        all.first { $0.formatName == name }
    }

    /// The format of a stream starting with `prefix`, or nil while undecided.
    public static func detect(_ prefix: ArraySlice<UInt8>, isComplete: Bool = false) -> (any InputDecoder.Type)? {
        for decoder in all {
            switch decoder.sniff(prefix, isComplete: isComplete) {
            case .match: return decoder
            case .needMore: return nil
            case .noMatch: continue
            }
        }
        return isComplete ? all.last : nil
    }
}

extension NMEAStreamDecoder: InputDecoder {
    public static let formatName = "nmea"
    public static let formatDescription = "NMEA 0183 sentences (a receiver, gpspipe -r, a capture)"
    /// NMEA is the fallback: it reads anything, skipping what is not a sentence.
    public static func sniff(_ prefix: ArraySlice<UInt8>, isComplete: Bool) -> Sniff { .match }
    public init(options: DecoderOptions) {
        self.init(datePolicy: options.datePolicy, closesCyclesEarly: options.closesCyclesEarly)
    }
}

extension GPSDStreamDecoder: InputDecoder {
    public static let formatName = "gpsd"
    public static let formatDescription = "gpsd JSON reports (gpspipe -w, gpsd's socket)"
    /// The first line that is not blank, a comment or gpsd's greeting starts with `{`.
    public static func sniff(_ prefix: ArraySlice<UInt8>, isComplete: Bool) -> Sniff {
        switch InputFormat.detect(prefix, isComplete: isComplete) {
        case .gpsdJSON?: return .match
        case .nmea?: return .noMatch
        case nil: return .needMore
        }
    }
    public init(options: DecoderOptions) { self.init() }
}

extension UBXStreamDecoder: InputDecoder {
    public static let formatName = "ubx"
    public static let formatDescription = "u-blox UBX binary frames mixed with NMEA"
    /// Bytes a stream is looked at for a UBX frame: u-blox sends NMEA and UBX interleaved,
    /// and a receiver's stream is joined anywhere, so a frame is looked for in a window
    /// (about one epoch of a u-blox receiver with NAV-PVT on), not only at the start.
    public static let sniffWindow = 512

    /// A complete UBX frame with a good checksum within the first ``sniffWindow`` bytes.
    public static func sniff(_ prefix: ArraySlice<UInt8>, isComplete: Bool) -> Sniff {
        let undecided: Sniff = isComplete || prefix.count >= sniffWindow ? .noMatch : .needMore
        var index = prefix.startIndex
        while let start = prefix[index...].firstIndex(of: 0xB5) {
            index = start + 1
            guard start + 6 <= prefix.endIndex else { return undecided }
            guard prefix[start + 1] == 0x62 else { continue }
            let length = Int(prefix[start + 4]) | Int(prefix[start + 5]) << 8
            guard length <= maximumPayload else { continue }
            guard start + 8 + length <= prefix.endIndex else { return isComplete ? .noMatch : .needMore }
            if checksumIsValid(prefix[start..<(start + 8 + length)]) { return .match }
        }
        return undecided
    }
    public init(options: DecoderOptions) {
        self.init(datePolicy: options.datePolicy, closesCyclesEarly: options.closesCyclesEarly)
    }
}

extension UBXStreamDecoder: FixStreamDecoder {}
