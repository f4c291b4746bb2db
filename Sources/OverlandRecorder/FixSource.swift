import OverlandJournal
import OverlandNMEA

/// The decoder for one input: NMEA 0183 or gpsd JSON, chosen by the caller or detected
/// from the first line that is neither blank nor a `#` comment (`{` means gpsd JSON).
struct FixSource {
    private enum State {
        case detecting([UInt8])
        case nmea(NMEAStreamDecoder)
        case gpsd(GPSDStreamDecoder)
    }

    private var state: State
    private let datePolicy: DatePolicy
    private var gate: FixTimeGate
    /// Decoded fixes before the time gate.
    private var decoded: [Fix] = []
    /// Bytes pushed, and of the first 4 KiB how many were text (printable ASCII, tab, CR, LF).
    private(set) var bytesRead = 0
    private var sampled = 0
    private var textBytes = 0
    /// Bytes kept while detecting, at most: past that the input is taken for NMEA.
    private static let detectionLimit = 4096

    private let isLive: Bool

    init(choice: InputFormatChoice, datePolicy: DatePolicy, isLive: Bool = false,
         now: @escaping @Sendable () -> Int64 = { Journal.currentTime() }) {
        self.datePolicy = datePolicy
        self.isLive = isLive
        gate = FixTimeGate(now: now)
        switch choice {
        case .automatic: state = .detecting([])
        case .nmea: state = .nmea(NMEAStreamDecoder(datePolicy: datePolicy, closesCyclesEarly: isLive))
        case .gpsd: state = .gpsd(GPSDStreamDecoder())
        }
    }

    var statistics: DecoderStatistics {
        var statistics: DecoderStatistics
        switch state {
        case .detecting: statistics = DecoderStatistics()
        case .nmea(let decoder): statistics = decoder.statistics
        case .gpsd(let decoder): statistics = decoder.statistics
        }
        statistics.futureFixes += gate.futureFixes
        statistics.timeOutliers += gate.timeOutliers
        statistics.fixes -= gate.futureFixes + gate.timeOutliers
        return statistics
    }

    /// Whether anything in the input was NMEA or gpsd JSON: a sentence of a type that can
    /// carry a fix (RMC, GGA, GNS, GLL, GSA, GST, VTG, ZDA; with a fix or without), or a
    /// gpsd report of any class. False for a file of something else entirely.
    var recognisedAnything: Bool {
        let s = statistics
        return s.acceptedSentences + s.positionReports + s.ignoredReports > 0
    }

    /// What the input held when nothing in it was recognised, e.g. "142312 bytes of binary data".
    var contentDescription: String {
        if bytesRead == 0 { return "it is empty" }
        let kind = sampled > 0 && textBytes * 100 >= sampled * 95 ? "text" : "binary data"
        let s = statistics
        let other = s.ignoredSentences > 0 ? " (\(s.ignoredSentences) sentences of types without a position)" : ""
        return "found \(bytesRead) \(bytesRead == 1 ? "byte" : "bytes") of \(kind)\(other), no NMEA position sentence or gpsd report"
    }

    mutating func push(_ bytes: UnsafeRawBufferPointer, into fixes: inout [Fix]) {
        if sampled < 4096 {
            for byte in bytes.prefix(4096 - sampled) where (byte >= 0x20 && byte < 0x7F) || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                textBytes += 1
            }
            sampled += min(bytes.count, 4096 - sampled)
        }
        bytesRead += bytes.count
        decode(bytes)
        admit(into: &fixes)
    }

    private mutating func admit(into fixes: inout [Fix]) {
        guard !decoded.isEmpty else { return }
        for fix in decoded { gate.admit(fix, into: &fixes) }
        decoded.removeAll(keepingCapacity: true)
    }

    private mutating func decode(_ bytes: UnsafeRawBufferPointer) {
        switch state {
        case .detecting(var seen):
            seen.append(contentsOf: bytes)
            guard let format = InputFormat.detect(seen) ?? (seen.count > Self.detectionLimit ? .nmea : nil) else {
                state = .detecting(seen)
                return
            }
            state = format == .gpsdJSON ? .gpsd(GPSDStreamDecoder()) : .nmea(NMEAStreamDecoder(datePolicy: datePolicy, closesCyclesEarly: isLive))
            seen.withUnsafeBytes { decode($0) }
        case .nmea(var decoder):
            state = .detecting([]) // drop the second reference: no copy-on-write of its buffers
            decoder.push(bytes, into: &decoded)
            state = .nmea(decoder)
        case .gpsd(var decoder):
            state = .detecting([])
            decoder.push(bytes, into: &decoded)
            state = .gpsd(decoder)
        }
    }

    /// Whether a fix waits for the rest of its reporting cycle.
    var hasOpenCycle: Bool {
        switch state {
        case .detecting: return false
        case .nmea(let decoder): return decoder.hasOpenCycle
        case .gpsd(let decoder): return decoder.hasOpenCycle
        }
    }

    /// Completes the open reporting cycle now: the input went quiet.
    mutating func closeCycle(into fixes: inout [Fix]) {
        switch state {
        case .detecting: break
        case .nmea(var decoder):
            state = .detecting([])
            decoder.closeCycle(into: &decoded)
            state = .nmea(decoder)
        case .gpsd(var decoder):
            state = .detecting([])
            decoder.closeCycle(into: &decoded)
            state = .gpsd(decoder)
        }
        admit(into: &fixes)
    }

    mutating func finish(into fixes: inout [Fix]) {
        if case .detecting(let seen) = state {
            let format = InputFormat.detect(seen, isComplete: true) ?? .nmea
            state = format == .gpsdJSON ? .gpsd(GPSDStreamDecoder()) : .nmea(NMEAStreamDecoder(datePolicy: datePolicy, closesCyclesEarly: isLive))
            seen.withUnsafeBytes { decode($0) }
        }
        switch state {
        case .detecting: break
        case .nmea(var decoder):
            state = .detecting([])
            decoder.finish(into: &decoded)
            state = .nmea(decoder)
        case .gpsd(var decoder):
            state = .detecting([])
            decoder.finish(into: &decoded)
            state = .gpsd(decoder)
        }
        admit(into: &fixes)
        gate.finish()
    }
}
