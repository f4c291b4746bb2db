import Foundation

/// How much a fuzz test does: a few seconds in `swift test`, `OVERLAND_SOAK_SCALE` times as
/// much (and a new seed, `OVERLAND_SOAK_SEED`) in `scripts/soak`. (In TestSupport, which every
/// test target links.)
public enum FuzzBudget {
    public static var scale: Int { ProcessInfo.processInfo.environment["OVERLAND_SOAK_SCALE"].flatMap(Int.init).map { max($0, 1) } ?? 1 }
    public static func seed(_ fixed: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["OVERLAND_SOAK_SEED"].flatMap(UInt64.init).map { $0 ^ fixed } ?? fixed
    }
    /// Seconds a time-bounded fuzz test runs at scale 1.
    public static var seconds: Double { 1 }
    /// Runs `body(index)` `count × scale` times, stopping early after `seconds × scale` but
    /// never before `minimum` rounds: what a test expects of its first `minimum` rounds
    /// (seeded) holds on a machine of any speed.
    public static func run(_ count: Int, seconds: Double, minimum: Int = 0, _ body: (Int) throws -> Void) rethrows -> Int {
        let deadline = Date().addingTimeInterval(seconds * Double(scale))
        var done = 0
        while done < count * scale && (done < minimum || Date() < deadline) {
            try body(done)
            done += 1
        }
        return done
    }
}

/// A small seeded generator (SplitMix64), so that the fuzz inputs repeat for a seed.
public struct SplitMix: RandomNumberGenerator {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
