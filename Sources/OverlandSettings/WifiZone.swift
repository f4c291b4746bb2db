import OverlandProtocol

/// The settings' checks of a wifi zone (the type, which the recorder takes as it is, is
/// OverlandProtocol's `WifiZone`).
extension WifiZone {
    /// Whether `ssid` can be a network name: 1 to 32 bytes, no control characters.
    static func isValidSSID(_ ssid: String) -> Bool {
        (1...32).contains(ssid.utf8.count) && !Validation.hasControlCharacter(ssid)
    }

    static let latitudeRange: ClosedRange<Double> = -90...90
    static let longitudeRange: ClosedRange<Double> = -180...180
}
