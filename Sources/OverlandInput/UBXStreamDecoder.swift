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
/// Decoded, as gpsd does for u-blox: the NAV messages of one navigation epoch (one iTOW)
/// are merged into one fix (see ``UBXEpoch``): NAV-PVT (u-blox 7 on), else NAV-SOL with
/// NAV-POSLLH and NAV-VELNED when sent (u-blox 5 and 6), plus NAV-DOP; NAV-TIMEGPS gives the
/// leap seconds NAV-SOL's GPS time needs. An epoch is emitted
/// - at its NAV-EOE (u-blox 8 on), the receiver's own end of the epoch;
/// - when a message of another epoch arrives, or the input ends or goes quiet;
/// - live (`closesCyclesEarly`), at the message that ends the receiver's epochs, learned as
///   gpsd learns it: the last of these messages before the iTOW changed. A message of an
///   epoch already emitted is counted late, and its learned ender is not learned again.
/// Other frames (NAV-SAT, RXM-RAWX, ...) are counted and ignored.
/// Once the stream has given a UBX fix, its NMEA fixes (the same epochs, with fewer digits
/// and no accuracy) are dropped and counted as superseded; before that, as from a receiver
/// whose UBX output is off, NMEA fixes are kept.
public struct UBXStreamDecoder: Sendable {
    /// The longest payload taken for a frame; u-blox's longest messages are a few KiB.
    public static let maximumPayload = 4096

    private var nmea: NMEAStreamDecoder
    private var frame: [UInt8] = []
    private var text: [UInt8] = []
    private let closesCyclesEarly: Bool
    /// The epoch being read, its time of week, and the last one emitted.
    private var epoch: UBXEpoch?
    private var closedTimeOfWeek: UInt32?
    private var closedByLearnedEnder = false
    /// GPS minus UTC as the receiver last stated it (NAV-TIMEGPS), for NAV-SOL's GPS time.
    private var leapSeconds: Int?
    /// Live: the message that ends the receiver's epochs, learned as gpsd does.
    private var lastMessage: UInt8?
    private var learnedEnder: UInt8?
    private var rejectedEnders: Set<UInt8> = []
    private var ubxFixes = false
    private var nmeaFixes: [Fix] = []
    private var counts = DecoderStatistics()
    /// UBX's own counters, added to ``statistics`` when asked (not boxed at every frame).
    private var frames = UBXStatistics()

    /// Creates a decoder; the NMEA sentences between frames are decoded as ``NMEAStreamDecoder`` does.
    public init(datePolicy: DatePolicy = .fromStreamOnly, closesCyclesEarly: Bool = false) {
        nmea = NMEAStreamDecoder(datePolicy: datePolicy, closesCyclesEarly: closesCyclesEarly)
        self.closesCyclesEarly = closesCyclesEarly
    }

    /// Everything counted so far, UBX frames and NMEA sentences.
    public var statistics: DecoderStatistics {
        var total = counts
        total.add(nmea.statistics)
        total[UBXStatistics.self] = frames
        total.fixes -= frames.supersededFixes // counted by the NMEA decoder, then dropped here
        return total
    }

    /// Decodes a chunk of the stream, appending the fixes it completes.
    public mutating func push(_ bytes: some Collection<UInt8>, into fixes: inout [Fix]) {
        scan(bytes, into: &fixes)
        flushText(into: &fixes)
    }

    /// Whether a fix waits for the rest of its epoch.
    public var hasOpenCycle: Bool { epoch?.hasPosition == true || nmea.hasOpenCycle }

    /// Emits what waits (the input went quiet).
    public mutating func closeCycle(into fixes: inout [Fix]) {
        closeEpoch(into: &fixes)
        nmea.closeCycle(into: &nmeaFixes)
        takeNMEAFixes(into: &fixes)
    }

    /// Ends the input: an unfinished frame's bytes go to the NMEA decoder, what waits is emitted.
    public mutating func finish(into fixes: inout [Fix]) {
        if !frame.isEmpty {
            frames.brokenFrames += 1
            text.append(contentsOf: frame)
            frame = []
        }
        flushText(into: &fixes)
        closeEpoch(into: &fixes)
        nmea.finish(into: &nmeaFixes)
        takeNMEAFixes(into: &fixes)
        ubxFixes = false
        lastMessage = nil
        closedTimeOfWeek = nil
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
                frames.brokenFrames += 1
                return notAFrame(into: &fixes)
            }
            frames.binaryFrames += 1
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
            frames.supersededFixes += nmeaFixes.count
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

    /// A NAV message of the epoch stated by its iTOW: an epoch with another iTOW is over.
    private mutating func handle(class messageClass: UInt8, id: UInt8, payload: ArraySlice<UInt8>, into fixes: inout [Fix]) {
        typealias ID = UBXMessage.ID
        guard messageClass == UBXMessage.navigation,
              let minimum = id == ID.endOfEpoch ? 4 : UBXMessage.minimumLength[id], payload.count >= minimum else {
            frames.ignoredFrames += 1
            return
        }
        let timeOfWeek = UBXMessage.timeOfWeek(payload)
        if let open = epoch, open.timeOfWeek != timeOfWeek {
            if closesCyclesEarly, let last = lastMessage, !rejectedEnders.contains(last) { learnedEnder = last }
            closeEpoch(into: &fixes)
        }
        if epoch == nil, timeOfWeek == closedTimeOfWeek {
            // A message of an epoch already emitted: the ender it was closed by was wrong.
            counts.lateSentences += 1
            if closedByLearnedEnder, let ender = learnedEnder {
                rejectedEnders.insert(ender)
                learnedEnder = nil
            }
            return
        }
        var current = epoch ?? UBXEpoch(timeOfWeek: timeOfWeek)
        switch id {
        case ID.pvt:
            frames.positionFrames += 1
            switch UBXEpoch.pvt(payload) {
            case .success(let fix):
                current.pvt = fix
                ubxFixes = true
            case .failure(let failure): count(failure)
            }
        case ID.solution:
            frames.positionFrames += 1
            let solution = UBXSolution(payload)
            if solution.fixOK && [2, 3, 4, 5].contains(solution.fixType) { ubxFixes = true }
            current.solution = solution
        case ID.posLLH: current.position = UBXGeodeticPosition(payload)
        case ID.velNED: current.velocity = UBXGroundVelocity(payload)
        case ID.dop: current.dilutions = UBXDilutions(payload)
        case ID.timeGPS:
            if UBXMessage.u8(payload, 11) & 0x04 != 0 { leapSeconds = Int(Int8(bitPattern: UBXMessage.u8(payload, 10))) }
        default: // NAV-EOE
            epoch = current
            closeEpoch(into: &fixes)
            lastMessage = nil
            return
        }
        epoch = current
        lastMessage = id
        if closesCyclesEarly, id == learnedEnder { closeEpoch(into: &fixes, byLearnedEnder: true) }
    }

    /// Emits the open epoch's fix, if it makes one.
    private mutating func closeEpoch(into fixes: inout [Fix], byLearnedEnder: Bool = false) {
        guard let closing = epoch else { return }
        epoch = nil
        closedTimeOfWeek = closing.timeOfWeek
        closedByLearnedEnder = byLearnedEnder
        switch closing.fix(leapSeconds: leapSeconds) {
        case .success(let fix)?:
            counts.fixes += 1
            fixes.append(fix)
        case .failure(let failure)? where closing.pvt == nil: count(failure) // NAV-PVT's were counted when read
        default: break
        }
    }

    private mutating func count(_ failure: UBXEpoch.Failure) {
        switch failure {
        case .noFix: counts.invalidFixes += 1
        case .undated: counts.undatedFixes += 1
        case .outOfRange: frames.malformedFrames += 1
        }
    }
}

// MARK: - The input format

extension UBXStreamDecoder: InputDecoder {
    public static let formatName = "ubx"
    public static let formatTitle = "u-blox UBX"
    public static let formatDescription = "u-blox UBX binary frames mixed with NMEA"
    /// Bytes a stream is looked at for a UBX frame: u-blox sends NMEA, UBX and RTCM3
    /// interleaved, and a receiver's stream is joined anywhere, so a frame is looked for in a
    /// window (about one epoch of a u-blox receiver, a second at 9600 baud), not only at the
    /// start. The window starts after the `#` comment lines a capture may begin with (gpsd's
    /// regression captures name the receiver there).
    public static let sniffWindow = 1024

    /// A complete UBX frame with a good checksum starting within ``sniffWindow`` bytes of
    /// the start (or of the end of the leading comment lines).
    public static func sniff(_ prefix: ArraySlice<UInt8>, isComplete: Bool) -> Sniff {
        var windowStart = prefix.startIndex
        while windowStart < prefix.endIndex, prefix[windowStart] == UInt8(ascii: "#") {
            guard let end = prefix[windowStart...].firstIndex(of: UInt8(ascii: "\n")) else {
                return isComplete ? .noMatch : .needMore
            }
            windowStart = end + 1
        }
        let windowEnd = min(prefix.endIndex, windowStart + sniffWindow)
        var index = windowStart
        while let start = prefix[index..<windowEnd].firstIndex(of: 0xB5) {
            index = start + 1
            guard start + 6 <= prefix.endIndex else { return isComplete ? .noMatch : .needMore }
            guard prefix[start + 1] == 0x62 else { continue }
            let length = Int(prefix[start + 4]) | Int(prefix[start + 5]) << 8
            guard length <= maximumPayload else { continue }
            guard start + 8 + length <= prefix.endIndex else { return isComplete ? .noMatch : .needMore }
            if checksumIsValid(prefix[start..<(start + 8 + length)]) { return .match }
        }
        return isComplete || prefix.endIndex - windowStart >= sniffWindow ? .noMatch : .needMore
    }
    /// A u-blox receiver sends its UBX frames with every epoch: once a live stream went
    /// quiet after an epoch without one, it is not UBX.
    public static func sniffAfterQuiet(_ prefix: ArraySlice<UInt8>) -> Sniff { sniff(prefix, isComplete: true) }

    public init(options: DecoderOptions) {
        self.init(datePolicy: options.datePolicy, closesCyclesEarly: options.closesCyclesEarly)
    }
}
