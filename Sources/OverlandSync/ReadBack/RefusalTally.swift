import OverlandJSON
import OverlandProtocol

/// The refused points of a pass, in bounded memory: their count, first and last time, and
/// for each `RefusalCause` whether every refused point has it and whether any stored one does.
struct RefusalTally {
    private var count = 0
    private var storedCount = 0
    private var firstTime = Int64.max
    private var lastTime = Int64.min
    private var allRefusedHave = Set(RefusalCause.allCases)
    private var someStoredHave = Set<RefusalCause>()

    mutating func note(refused point: LocationFeature, in held: ReadBackPass.HeldPoints, device: String) {
        count += 1
        firstTime = min(firstTime, point.timestamp)
        lastTime = max(lastTime, point.timestamp)
        allRefusedHave.formIntersection(Self.causes(of: point, in: held, device: device))
    }

    mutating func note(stored point: LocationFeature, device: String) {
        storedCount += 1
        // Whether a stored point shares its second is not asked: only the refused ones'.
        someStoredHave.formUnion(Self.causes(of: point, in: nil, device: device))
    }

    /// Adds what `other` noted.
    mutating func merge(_ other: RefusalTally) {
        if other.count > 0 {
            allRefusedHave.formIntersection(other.allRefusedHave)
            firstTime = min(firstTime, other.firstTime)
            lastTime = max(lastTime, other.lastTime)
            count += other.count
        }
        storedCount += other.storedCount
        someStoredHave.formUnion(other.someStoredHave)
    }

    /// The pass's refusal, nil when nothing was refused. A cause is named only when it sets
    /// the refused points apart from stored ones of the same pass (every refused point has
    /// it, no stored one does), and only one whose fix `configuration` can take; with no
    /// point stored at all, nothing sets them apart: the receiver holds none of them.
    func refusal(for configuration: SyncConfiguration) -> ReadBackReport.Refusal? {
        guard count > 0 else { return nil }
        var refusal = ReadBackReport.Refusal(count: count, firstTime: firstTime, lastTime: lastTime, cause: nil)
        guard storedCount > 0 else {
            refusal.noneHeld = true
            return refusal
        }
        refusal.cause = RefusalCause.allCases.first {
            allRefusedHave.contains($0) && !someStoredHave.contains($0) && $0.canBeFixed(by: configuration)
        }
        return refusal
    }

    /// The causes `point` has, filed under `device`.
    static func causes(of point: LocationFeature, in held: ReadBackPass.HeldPoints?, device: String) -> Set<RefusalCause> {
        var causes = Set<RefusalCause>()
        if point.speed >= 0, point.speed != point.speed.rounded() { causes.insert(.fractionalSpeed) }
        if point.horizontalAccuracy == 0 { causes.insert(.zeroAccuracy) }
        if held?.sharesSecond(point, device: device) == true { causes.insert(.sharedSecond) }
        if device.split(separator: "/", omittingEmptySubsequences: false).count > 2 { causes.insert(.deviceTwoSlashes) }
        return causes
    }
}

extension RefusalCause {
    /// Whether the setting `fix` names exists for `configuration`: profile wayfinder is an
    /// Overland receiver's profile, never an OwnTracks, Traccar or MQTT destination's.
    func canBeFixed(by configuration: SyncConfiguration) -> Bool {
        switch self {
        case .fractionalSpeed, .zeroAccuracy: configuration.wireProtocol == .overland
        case .sharedSecond, .deviceTwoSlashes: true
        }
    }
}

extension ReadBackReport.Refusal {
    /// One line: how many, from when to when, what sets them apart and what fixes it.
    public func line(receiver: String) -> String {
        let span = "from \(ISO8601UTC.string(from: firstTime)) to \(ISO8601UTC.string(from: lastTime)); no longer sent"
        var text = "\(receiver) did not store \(Plural.count(count, "point")) acknowledged and sent twice again, " + span
        if throughBroker {
            // The broker took them; whether the receiver ever got them is not known.
            text = "\(receiver) does not hold \(Plural.count(count, "point")) the broker acknowledged, each published twice "
                + "again, " + span + ": the broker may have dropped them before \(receiver) had them (mosquitto logs "
                + "\"Outgoing messages are being dropped\": raise its max_queued_messages or lower resend_rate; "
                + "'overland destination resend' sends them again)"
        }
        if let cause { text += ": \(cause.what): \(cause.fix)" }
        if noneHeld {
            text += ": \(receiver) holds none of these points: check verify_url, the device or entity it is read for "
                + "(device_id, topic), and verify_token"
        }
        return text
    }
}
