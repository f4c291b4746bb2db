#if canImport(Glibc)
import Glibc
import OverlandJSON
#endif

/// The decoder for one input: the format chosen by the caller, or detected from the
/// stream's first bytes by the sniffers of ``InputDecoders`` (gpsd JSON, u-blox UBX, else
/// NMEA), then the ``FixTimeGate`` for every format.
public struct FixSource {
    private var detecting: [UInt8]? = []
    private var decoder: (any InputDecoder)?
    private let options: DecoderOptions
    private var gate: FixTimeGate
    /// Decoded fixes before the time gate.
    private var decoded: [Fix] = []
    /// Bytes pushed, and of the first 4 KiB how many were text (printable ASCII, tab, CR, LF).
    public private(set) var bytesRead = 0
    private var sampled = 0
    private var textBytes = 0
    /// Bytes kept while detecting, at most: past that the input is taken for NMEA.
    private static let detectionLimit = 4096

    public init(choice: InputFormatChoice, datePolicy: DatePolicy, isLive: Bool = false,
                now: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) {
        options = DecoderOptions(datePolicy: datePolicy, closesCyclesEarly: isLive)
        gate = FixTimeGate(now: now)
        if let format = choice.decoder {
            decoder = format.init(options: options)
            detecting = nil
        }
    }

    /// The name of the format being decoded, once known.
    public var formatName: String? { decoder.map { type(of: $0).formatName } }

    public var statistics: DecoderStatistics {
        var statistics = decoder?.statistics ?? DecoderStatistics()
        statistics.futureFixes += gate.futureFixes
        statistics.timeOutliers += gate.timeOutliers
        statistics.fixes -= gate.futureFixes + gate.timeOutliers
        return statistics
    }

    /// Whether anything in the input was a format's own: a sentence of a type that can
    /// carry a fix (RMC, GGA, GNS, GLL, GSA, GST, VTG, ZDA; with a fix or without), a gpsd
    /// report of any class, a UBX frame. False for a file of something else entirely.
    public var recognisedAnything: Bool { statistics.recognisedUnits > 0 }

    /// What the input held when nothing in it was recognised, e.g. "142312 bytes of binary data".
    public var contentDescription: String {
        if bytesRead == 0 { return "it is empty" }
        let kind = sampled > 0 && textBytes * 100 >= sampled * 95 ? "text" : "binary data"
        let s = statistics
        let other = s.ignoredSentences > 0
            ? " (\(Plural.count(s.ignoredSentences, "sentence")) of types without a position)" : ""
        return "found \(Plural.count(bytesRead, "byte")) of \(kind)\(other), nothing any input format recognises"
    }

    public mutating func push(_ bytes: UnsafeRawBufferPointer, into fixes: inout [Fix]) {
        if sampled < 4096 {
            for byte in bytes.prefix(4096 - sampled) where (byte >= 0x20 && byte < 0x7F) || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                textBytes += 1
            }
            sampled += min(bytes.count, 4096 - sampled)
        }
        bytesRead += bytes.count
        decode(bytes, isComplete: false)
        admit(into: &fixes)
    }

    private mutating func admit(into fixes: inout [Fix]) {
        guard !decoded.isEmpty else { return }
        for fix in decoded { gate.admit(fix, into: &fixes) }
        decoded.removeAll(keepingCapacity: true)
    }

    private mutating func decode(_ bytes: UnsafeRawBufferPointer, isComplete: Bool) {
        if var seen = detecting {
            seen.append(contentsOf: bytes)
            let format = InputDecoders.detect(seen[...], isComplete: isComplete)
                ?? (isComplete || seen.count > Self.detectionLimit ? NMEAStreamDecoder.self : nil)
            guard let format else {
                detecting = seen
                return
            }
            detecting = nil
            decoder = format.init(options: options)
            seen.withUnsafeBytes { decode($0, isComplete: isComplete) }
            return
        }
        decoder?.push(bytes, into: &decoded)
    }

    /// Whether a fix waits for the rest of its reporting cycle.
    /// While the format is being detected, bytes that wait for it count as an open cycle.
    public var hasOpenCycle: Bool { decoder?.hasOpenCycle ?? (detecting?.isEmpty == false) }

    /// Completes the open reporting cycle now: the input went quiet. A live input that goes
    /// quiet before its format could be told (a UBX frame is looked for in its first KiB)
    /// has sent a whole epoch: its format is decided on what came if that decides it (a
    /// u-blox epoch carries its UBX frames; gpsd's greeting alone decides nothing), so a
    /// slow NMEA stream's first fixes do not wait for more bytes.
    public mutating func closeCycle(into fixes: inout [Fix]) {
        if let seen = detecting, !seen.isEmpty, let format = InputDecoders.detectAfterQuiet(seen[...]) {
            detecting = nil
            decoder = format.init(options: options)
            seen.withUnsafeBytes { decoder?.push($0, into: &decoded) }
        }
        decoder?.closeCycle(into: &decoded)
        admit(into: &fixes)
    }

    public mutating func finish(into fixes: inout [Fix]) {
        if detecting != nil {
            [UInt8]().withUnsafeBytes { decode($0, isComplete: true) }
        }
        decoder?.finish(into: &decoded)
        admit(into: &fixes)
        gate.finish()
    }
}

/// Which decoder reads the input: `auto` (detected), or a format of ``InputDecoders``.
public struct InputFormatChoice: Sendable, Equatable, Hashable, RawRepresentable {
    public let rawValue: String

    public init?(rawValue: String) {
        guard rawValue == "auto" || InputDecoders.named(rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    private init(known: String) { rawValue = known }

    public static let automatic = InputFormatChoice(known: "auto")
    public static let nmea = InputFormatChoice(known: "nmea")
    public static let gpsd = InputFormatChoice(known: "gpsd")
    public static let ubx = InputFormatChoice(known: "ubx")

    /// Every value `--input` takes.
    public static var allNames: [String] { ["auto"] + InputDecoders.all.map { $0.formatName } }

    /// The decoder chosen, nil for `auto`.
    var decoder: (any InputDecoder.Type)? { InputDecoders.named(rawValue) }
}
