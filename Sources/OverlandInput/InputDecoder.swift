import OverlandJSON

/// One input format: a push decoder from the bytes of a stream to fixes, with its own
/// statistics, that can tell from a stream's first bytes whether the stream is its format.
///
/// Every format the logger reads is one type conforming to this protocol, in one file,
/// listed once in ``InputDecoders/all``: adding a format is writing that file and adding
/// its line to the table.
public protocol InputDecoder: FixStreamDecoder {
    /// The name `--input` takes (`nmea`, `gpsd`, `ubx`).
    static var formatName: String { get }
    /// What the format is called in a sentence ("NMEA 0183", "u-blox UBX").
    static var formatTitle: String { get }
    /// What the format is, for help and messages.
    static var formatDescription: String { get }
    /// Whether a stream starting with `prefix` is this format; ``Sniff/needMore`` while
    /// `prefix` does not decide yet (`isComplete`: the stream has ended, decide now).
    static func sniff(_ prefix: ArraySlice<UInt8>, isComplete: Bool) -> Sniff
    /// The same, when a live stream went quiet after `prefix`: a receiver has sent its
    /// whole epoch. By default, the same as ``sniff(_:isComplete:)`` with more to come.
    static func sniffAfterQuiet(_ prefix: ArraySlice<UInt8>) -> Sniff
    /// A decoder for one stream.
    init(options: DecoderOptions)
}

extension InputDecoder {
    public static func sniffAfterQuiet(_ prefix: ArraySlice<UInt8>) -> Sniff { sniff(prefix, isComplete: false) }
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

    /// Every format's title, as a list: "gpsd JSON, u-blox UBX or NMEA 0183".
    public static var titles: String { Plural.list(all.map { $0.formatTitle }) }

    /// `--input`'s help: each format's name and what it is, from the table.
    public static var help: String {
        "auto (detected from the first bytes), " + Plural.list(all.map { "\($0.formatName) (\($0.formatDescription))" })
    }

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

    /// The format of a live stream that went quiet after `prefix`, or nil while a sniffer
    /// still needs more (gpsd's greeting alone decides nothing).
    public static func detectAfterQuiet(_ prefix: ArraySlice<UInt8>) -> (any InputDecoder.Type)? {
        for decoder in all {
            switch decoder.sniffAfterQuiet(prefix) {
            case .match: return decoder
            case .needMore: return nil
            case .noMatch: continue
            }
        }
        return nil
    }
}
