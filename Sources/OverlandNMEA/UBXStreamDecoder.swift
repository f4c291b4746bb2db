/// u-blox receivers: UBX binary frames mixed with NMEA, as u-blox sends them (both on one
/// port), decoded from bytes to fixes. Registered as input format `ubx`, sniffed by a UBX
/// frame with a good checksum in the first bytes.
///
/// A UBX frame is `B5 62`, class, id, a little-endian 16-bit payload length, the payload,
/// and a two-byte Fletcher checksum over class to payload. Frames are cut out of the stream
/// wherever they start; every other byte goes, in order, to an ``NMEAStreamDecoder``. A
/// `B5 62` whose length is implausible or whose checksum fails is not a frame: its bytes go
/// to the NMEA decoder (which skips binary bytes) and the frame is counted as damaged.
///
/// Decoded, as gpsd does for u-blox:
/// - NAV-PVT (class 1, id 7): the fix, with the receiver's own accuracy estimates: hAcc
///   (horizontal), vAcc (vertical), sAcc (speed), headAcc (course), instead of estimates
///   from DOPs; altitude above mean sea level (hMSL), ground speed, heading of motion,
///   satellites used, PDOP. A fix needs gnssFixOK, fix type 2D, 3D or GNSS+dead reckoning,
///   and a valid date and time; the time is the UTC fields plus the signed nanoseconds.
/// - NAV-DOP (1, 4): HDOP, VDOP and PDOP, merged into the fix of the same iTOW.
/// - NAV-EOE (1, 0x61), the end of the epoch: once the stream has sent one, a fix waits for
///   its epoch's EOE (so NAV-DOP after NAV-PVT is merged); before, a fix is emitted with its
///   NAV-PVT.
/// Once the stream has given a NAV-PVT fix, its NMEA fixes (the same epochs, with fewer
/// digits and no accuracy) are dropped and counted as superseded; before that, as from a
/// receiver whose UBX output is off, NMEA fixes are kept.
public struct UBXStreamDecoder: Sendable {
    /// The longest payload taken for a frame; u-blox's longest messages are a few KiB.
    public static let maximumPayload = 4096

    private var nmea: NMEAStreamDecoder
    private var frame: [UInt8] = []
    private var text: [UInt8] = []
    private var pending: (iTOW: UInt32, fix: Fix)?
    private var sawEndOfEpoch = false
    private var ubxFixes = false
    private var nmeaFixes: [Fix] = []
    private var counts = DecoderStatistics()

    /// Creates a decoder; the NMEA sentences between frames are decoded as ``NMEAStreamDecoder`` does.
    public init(datePolicy: DatePolicy = .fromStreamOnly, closesCyclesEarly: Bool = false) {
        nmea = NMEAStreamDecoder(datePolicy: datePolicy, closesCyclesEarly: closesCyclesEarly)
    }

    /// Everything counted so far, UBX frames and NMEA sentences.
    public var statistics: DecoderStatistics {
        var total = counts
        total.add(nmea.statistics)
        total.fixes -= counts.supersededFixes // counted by the NMEA decoder, then dropped here
        return total
    }

    /// Decodes a chunk of the stream, appending the fixes it completes.
    public mutating func push(_ bytes: some Collection<UInt8>, into fixes: inout [Fix]) {
        scan(bytes, into: &fixes)
        flushText(into: &fixes)
    }

    /// Whether a fix waits for the rest of its epoch.
    public var hasOpenCycle: Bool { pending != nil || nmea.hasOpenCycle }

    /// Emits what waits (the input went quiet).
    public mutating func closeCycle(into fixes: inout [Fix]) {
        emitPending(into: &fixes)
        nmea.closeCycle(into: &nmeaFixes)
        takeNMEAFixes(into: &fixes)
    }

    /// Ends the input: an unfinished frame's bytes go to the NMEA decoder, what waits is emitted.
    public mutating func finish(into fixes: inout [Fix]) {
        if !frame.isEmpty {
            counts.brokenFrames += 1
            text.append(contentsOf: frame)
            frame = []
        }
        flushText(into: &fixes)
        emitPending(into: &fixes)
        nmea.finish(into: &nmeaFixes)
        takeNMEAFixes(into: &fixes)
        sawEndOfEpoch = false
        ubxFixes = false
    }

    // MARK: - Framing

    /// With `frame` holding `B5` and more: decides whether it is a frame yet.
    private mutating func scanFrame(into fixes: inout [Fix]) {
        while !frame.isEmpty {
            if frame.count >= 2 && frame[1] != 0x62 { return notAFrame(into: &fixes) }
            guard frame.count >= 6 else { return }
            let length = Int(frame[4]) | Int(frame[5]) << 8
            guard length <= Self.maximumPayload else { return notAFrame(into: &fixes) }
            guard frame.count >= length + 8 else { return }
            guard Self.checksumIsValid(frame[0..<(length + 8)]) else {
                counts.brokenFrames += 1
                return notAFrame(into: &fixes)
            }
            counts.binaryFrames += 1
            handle(class: frame[2], id: frame[3], payload: frame[6..<(6 + length)], into: &fixes)
            let rest = Array(frame[(length + 8)...])
            frame = []
            scan(rest, into: &fixes)
            return
        }
    }

    /// The `B5` did not start a frame: it goes to the NMEA decoder, the rest is scanned again.
    private mutating func notAFrame(into fixes: inout [Fix]) {
        let rest = Array(frame.dropFirst())
        text.append(frame[0])
        frame = []
        scan(rest, into: &fixes)
    }

    /// Splits `bytes` between text (for the NMEA decoder) and UBX frames, a byte at a time.
    private mutating func scan(_ bytes: some Collection<UInt8>, into fixes: inout [Fix]) {
        for byte in bytes {
            if frame.isEmpty {
                if byte == 0xB5 {
                    flushText(into: &fixes)
                    frame.append(byte)
                } else {
                    text.append(byte)
                }
            } else {
                frame.append(byte)
                scanFrame(into: &fixes)
            }
        }
    }

    private mutating func flushText(into fixes: inout [Fix]) {
        guard !text.isEmpty else { return }
        nmea.push(text, into: &nmeaFixes)
        text.removeAll(keepingCapacity: true)
        takeNMEAFixes(into: &fixes)
    }

    private mutating func takeNMEAFixes(into fixes: inout [Fix]) {
        guard !nmeaFixes.isEmpty else { return }
        if ubxFixes {
            counts.supersededFixes += nmeaFixes.count
        } else {
            fixes.append(contentsOf: nmeaFixes)
        }
        nmeaFixes.removeAll(keepingCapacity: true)
    }

    /// The 8-bit Fletcher checksum over class, id, length and payload (u-blox's "CK_A, CK_B").
    static func checksumIsValid(_ frame: ArraySlice<UInt8>) -> Bool {
        let body = frame.dropFirst(2).dropLast(2)
        let (a, b) = checksum(body)
        return frame[frame.endIndex - 2] == a && frame[frame.endIndex - 1] == b
    }

    /// CK_A and CK_B over `body` (class to the end of the payload).
    public static func checksum(_ body: some Collection<UInt8>) -> (UInt8, UInt8) {
        var a: UInt8 = 0, b: UInt8 = 0
        for byte in body {
            a = a &+ byte
            b = b &+ a
        }
        return (a, b)
    }

    // MARK: - Messages

    private mutating func handle(class messageClass: UInt8, id: UInt8, payload: ArraySlice<UInt8>, into fixes: inout [Fix]) {
        guard messageClass == 0x01 else {
            counts.ignoredFrames += 1
            return
        }
        switch id {
        case 0x07 where payload.count >= 92:
            counts.positionFrames += 1
            let iTOW = Self.u32(payload, 0)
            if let pending, pending.iTOW != iTOW { emitPending(into: &fixes) }
            guard let fix = navPVT(payload) else { return }
            ubxFixes = true
            pending = (iTOW, fix)
            if !sawEndOfEpoch { emitPending(into: &fixes) }
        case 0x04 where payload.count >= 18:
            let iTOW = Self.u32(payload, 0)
            guard var waiting = pending, waiting.iTOW == iTOW else { return }
            waiting.fix.pdop = Double(Self.u16(payload, 6)) / 100
            waiting.fix.vdop = Double(Self.u16(payload, 10)) / 100
            waiting.fix.hdop = Double(Self.u16(payload, 12)) / 100
            pending = waiting
        case 0x61 where payload.count >= 4:
            sawEndOfEpoch = true
            if let waiting = pending, waiting.iTOW == Self.u32(payload, 0) { emitPending(into: &fixes) }
        default:
            counts.ignoredFrames += 1
        }
    }

    private mutating func emitPending(into fixes: inout [Fix]) {
        guard let waiting = pending else { return }
        pending = nil
        counts.fixes += 1
        fixes.append(waiting.fix)
    }

    /// The fix of a NAV-PVT payload, or nil (counted) when it states none or no date.
    private mutating func navPVT(_ p: ArraySlice<UInt8>) -> Fix? {
        let valid = p[p.startIndex + 11]
        let fixType = p[p.startIndex + 20]
        let flags = p[p.startIndex + 21]
        guard flags & 0x01 != 0, [2, 3, 4].contains(fixType) else {
            counts.invalidFixes += 1
            return nil
        }
        guard valid & 0x03 == 0x03,
              let date = CivilDate(year: Int(Self.u16(p, 4)), month: Int(p[p.startIndex + 6]), day: Int(p[p.startIndex + 7])),
              p[p.startIndex + 8] < 24, p[p.startIndex + 9] < 60, p[p.startIndex + 10] <= 60 else {
            counts.undatedFixes += 1
            return nil
        }
        var time = date.daysSinceEpoch * 86_400 + Int64(p[p.startIndex + 8]) * 3600 + Int64(p[p.startIndex + 9]) * 60
            + Int64(p[p.startIndex + 10])
        var nanoseconds = Int64(Self.i32(p, 16))
        while nanoseconds < 0 {
            nanoseconds += 1_000_000_000
            time -= 1
        }
        while nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            time += 1
        }
        let threeD = fixType != 2
        let carrier = (flags >> 6) & 0x03
        let quality: FixQuality = carrier == 2 ? .rtkFixed : carrier == 1 ? .rtkFloat : flags & 0x02 != 0 ? .dgps : .gps
        let latitude = Double(Self.i32(p, 28)) * 1e-7
        let longitude = Double(Self.i32(p, 24)) * 1e-7
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            counts.malformedFrames += 1
            return nil
        }
        return Fix(
            time: time, nanoseconds: Int32(nanoseconds), latitude: latitude, longitude: longitude,
            altitude: threeD ? Double(Self.i32(p, 36)) / 1000 : nil,
            speed: Double(Self.i32(p, 60)) / 1000,
            course: Self.normalised(Double(Self.i32(p, 64)) * 1e-5),
            mode: threeD ? .threeD : .twoD, quality: quality,
            satellitesUsed: Int(p[p.startIndex + 23]),
            pdop: Double(Self.u16(p, 76)) / 100,
            horizontalAccuracy: Double(Self.u32(p, 40)) / 1000,
            verticalAccuracy: threeD ? Double(Self.u32(p, 44)) / 1000 : nil,
            speedAccuracy: Double(Self.u32(p, 68)) / 1000,
            courseAccuracy: Double(Self.u32(p, 72)) * 1e-5)
    }

    private static func normalised(_ degrees: Double) -> Double {
        let d = degrees.truncatingRemainder(dividingBy: 360)
        return d < 0 ? d + 360 : d
    }

    static func u16(_ p: ArraySlice<UInt8>, _ offset: Int) -> UInt16 {
        UInt16(p[p.startIndex + offset]) | UInt16(p[p.startIndex + offset + 1]) << 8
    }

    static func u32(_ p: ArraySlice<UInt8>, _ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(p[p.startIndex + offset + $1]) << (8 * UInt32($1)) }
    }

    static func i32(_ p: ArraySlice<UInt8>, _ offset: Int) -> Int32 { Int32(bitPattern: u32(p, offset)) }
}

// MARK: - The input format

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
