/// A network whose connection pins the reported location to a fixed point: the settings'
/// `wifi_zone` and what the recorder applies, one type.
public struct WifiZone: Sendable, Equatable {
    /// The SSID, 1 to 32 bytes of UTF-8 (the 802.11 limit).
    public var ssid: String
    /// Latitude of the fixed point, degrees, -90...90.
    public var latitude: Double
    /// Longitude of the fixed point, degrees, -180...180.
    public var longitude: Double

    /// Creates a zone; the values are not checked here (the settings' keys check them).
    public init(ssid: String, latitude: Double, longitude: Double) {
        self.ssid = ssid
        self.latitude = latitude
        self.longitude = longitude
    }
}
