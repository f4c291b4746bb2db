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
    /// Bytes kept while detecting, at most: past that the input is taken for NMEA.
    private static let detectionLimit = 4096

    init(choice: InputFormatChoice, datePolicy: DatePolicy) {
        self.datePolicy = datePolicy
        switch choice {
        case .automatic: state = .detecting([])
        case .nmea: state = .nmea(NMEAStreamDecoder(datePolicy: datePolicy))
        case .gpsd: state = .gpsd(GPSDStreamDecoder())
        }
    }

    var statistics: DecoderStatistics {
        switch state {
        case .detecting: return DecoderStatistics()
        case .nmea(let decoder): return decoder.statistics
        case .gpsd(let decoder): return decoder.statistics
        }
    }

    mutating func push(_ bytes: UnsafeRawBufferPointer, into fixes: inout [Fix]) {
        switch state {
        case .detecting(var seen):
            seen.append(contentsOf: bytes)
            guard let format = InputFormat.detect(seen) ?? (seen.count > Self.detectionLimit ? .nmea : nil) else {
                state = .detecting(seen)
                return
            }
            state = format == .gpsdJSON ? .gpsd(GPSDStreamDecoder()) : .nmea(NMEAStreamDecoder(datePolicy: datePolicy))
            push(seen, into: &fixes)
        case .nmea(var decoder):
            state = .detecting([]) // drop the second reference: no copy-on-write of its buffers
            decoder.push(bytes, into: &fixes)
            state = .nmea(decoder)
        case .gpsd(var decoder):
            state = .detecting([])
            decoder.push(bytes, into: &fixes)
            state = .gpsd(decoder)
        }
    }

    private mutating func push(_ bytes: [UInt8], into fixes: inout [Fix]) {
        bytes.withUnsafeBytes { push($0, into: &fixes) }
    }

    mutating func finish(into fixes: inout [Fix]) {
        if case .detecting(let seen) = state {
            let format = InputFormat.detect(seen, isComplete: true) ?? .nmea
            state = format == .gpsdJSON ? .gpsd(GPSDStreamDecoder()) : .nmea(NMEAStreamDecoder(datePolicy: datePolicy))
            push(seen, into: &fixes)
        }
        switch state {
        case .detecting: break
        case .nmea(var decoder):
            state = .detecting([])
            decoder.finish(into: &fixes)
            state = .nmea(decoder)
        case .gpsd(var decoder):
            state = .detecting([])
            decoder.finish(into: &fixes)
            state = .gpsd(decoder)
        }
    }
}
