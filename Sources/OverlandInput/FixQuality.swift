/// How a fix was obtained: the GGA fix-quality indicator, or the equivalent NMEA 2.3+ mode
/// indicator letter of RMC, GNS and GLL.
public enum FixQuality: Sendable, Equatable, Hashable, CaseIterable {
    /// Autonomous GNSS fix (GGA 1, mode `A`).
    case gps
    /// Differential fix: DGPS or SBAS (GGA 2 and 9, mode `D`).
    case dgps
    /// Precise positioning service fix (GGA 3, mode `P`).
    case pps
    /// Real-time kinematic fix with fixed integers (GGA 4, mode `R`).
    case rtkFixed
    /// Real-time kinematic fix with float integers (GGA 5, mode `F`).
    case rtkFloat
    /// Estimated (dead reckoning) fix (GGA 6, mode `E`).
    case estimated
    /// Position entered by hand (GGA 7, mode `M`).
    case manual
    /// Simulated fix (GGA 8, mode `S`).
    case simulation

    /// The quality for a GGA fix-quality digit; nil for 0 (no fix) and unknown values.
    public init?(ggaIndicator: Int) {
        switch ggaIndicator {
        case 1: self = .gps
        case 2, 9: self = .dgps
        case 3: self = .pps
        case 4: self = .rtkFixed
        case 5: self = .rtkFloat
        case 6: self = .estimated
        case 7: self = .manual
        case 8: self = .simulation
        default: return nil
        }
    }

    /// The quality for an NMEA mode-indicator letter; nil for `N` (not valid) and unknown letters.
    public init?(modeIndicator: UInt8) {
        switch modeIndicator {
        case UInt8(ascii: "A"): self = .gps
        case UInt8(ascii: "D"): self = .dgps
        case UInt8(ascii: "P"): self = .pps
        case UInt8(ascii: "R"): self = .rtkFixed
        case UInt8(ascii: "F"): self = .rtkFloat
        case UInt8(ascii: "E"): self = .estimated
        case UInt8(ascii: "M"): self = .manual
        case UInt8(ascii: "S"): self = .simulation
        default: return nil
        }
    }

    /// Rank used to pick the best of several mode letters in one GNS sentence (higher is better).
    var rank: Int {
        switch self {
        case .rtkFixed: 8
        case .rtkFloat: 7
        case .dgps: 6
        case .pps: 5
        case .gps: 4
        case .estimated: 3
        case .manual: 2
        case .simulation: 1
        }
    }
}
