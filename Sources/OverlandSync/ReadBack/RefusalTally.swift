import OverlandJSON
import OverlandProtocol

/// The refused points of a pass, in bounded memory: their count, first and last time, and
/// for each `RefusalCause` whether every refused point has it and whether any stored one does.
struct RefusalTally {
    private var count = 0
    private var firstTime = Int64.max
    private var lastTime = Int64.min
    private var allRefusedHave = Set(RefusalCause.allCases)
    private var someStoredHave = Set<RefusalCause>()

    mutating func note(refused point: LocationFeature, in held: ReadBackPass.HeldPoints, deviceID: String) {
        count += 1
        firstTime = min(firstTime, point.timestamp)
        lastTime = max(lastTime, point.timestamp)
        allRefusedHave.formIntersection(Self.causes(of: point, in: held, deviceID: deviceID))
    }

    mutating func note(stored point: LocationFeature, deviceID: String) {
        // Whether a stored point shares its second is not asked: only the refused ones'.
        someStoredHave.formUnion(Self.causes(of: point, in: nil, deviceID: deviceID))
    }

    /// Adds what `other` noted.
    mutating func merge(_ other: RefusalTally) {
        if other.count > 0 {
            allRefusedHave.formIntersection(other.allRefusedHave)
            firstTime = min(firstTime, other.firstTime)
            lastTime = max(lastTime, other.lastTime)
            count += other.count
        }
        someStoredHave.formUnion(other.someStoredHave)
    }

    /// The pass's refusal, nil when nothing was refused.
    var refusal: ReadBackReport.Refusal? {
        guard count > 0 else { return nil }
        let apart = RefusalCause.allCases.filter { allRefusedHave.contains($0) && !someStoredHave.contains($0) }
        return ReadBackReport.Refusal(count: count, firstTime: firstTime, lastTime: lastTime, cause: apart.first)
    }

    /// The causes `point` has.
    static func causes(of point: LocationFeature, in held: ReadBackPass.HeldPoints?, deviceID: String) -> Set<RefusalCause> {
        var causes = Set<RefusalCause>()
        if point.speed >= 0, point.speed != point.speed.rounded() { causes.insert(.fractionalSpeed) }
        if point.horizontalAccuracy == 0 { causes.insert(.zeroAccuracy) }
        if held?.sharesSecond(point, deviceID: deviceID) == true { causes.insert(.sharedSecond) }
        if deviceID.split(separator: "/", omittingEmptySubsequences: false).count > 2 { causes.insert(.deviceTwoSlashes) }
        return causes
    }
}

extension ReadBackReport.Refusal {
    /// One line: how many, from when to when, what sets them apart and what fixes it.
    public func line(receiver: String) -> String {
        var text = "\(receiver) did not store \(Plural.count(count, "point")) acknowledged and sent twice again, "
            + "from \(ISO8601UTC.string(from: firstTime)) to \(ISO8601UTC.string(from: lastTime)); no longer sent"
        if let cause { text += ": \(cause.what): \(cause.fix)" }
        return text
    }
}
