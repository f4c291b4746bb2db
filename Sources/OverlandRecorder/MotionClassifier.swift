import OverlandProtocol

/// Infers the Overland `motion` word from ground speed, since a GPS receiver has no
/// motion coprocessor. Thresholds (m/s): below 0.5 stationary, below 2.2 (8 km/h)
/// walking, below 4.2 (15 km/h) running, below 8.3 (30 km/h) cycling, else driving.
/// Speeds overlap between activities in life; these are the boundaries of the typical
/// paces. Unknown speed gives `[]`, as the protocol asks.
public enum MotionClassifier {
    public static let stationaryBelow = 0.5
    public static let walkingBelow = 2.2
    public static let runningBelow = 4.2
    public static let cyclingBelow = 8.3

    /// The motion words for a speed in m/s (nil: unknown).
    public static func motion(forSpeed speed: Double?) -> [Motion] {
        guard let speed, speed >= 0, speed.isFinite else { return [] }
        switch speed {
        case ..<stationaryBelow: return [.stationary]
        case ..<walkingBelow: return [.walking]
        case ..<runningBelow: return [.running]
        case ..<cyclingBelow: return [.cycling]
        default: return [.driving]
        }
    }
}
