import OverlandProtocol

/// The device's state stamped on each point: battery and Wi-Fi.
public struct DeviceSnapshot: Sendable, Equatable {
    public var batteryState: BatteryState
    /// 0...1, two decimals. A device without a battery reports state `unknown` and level 0:
    /// every receiver keeps that point (Wayfinder requires 0...1), Dawarich reads a level
    /// of 0 as unknown, and OwnTracks messages leave `batt` out.
    public var batteryLevel: Double
    /// SSID of the connected Wi-Fi network, or "".
    public var wifi: String

    public init(batteryState: BatteryState = .unknown, batteryLevel: Double = 0, wifi: String = "") {
        self.batteryState = batteryState
        self.batteryLevel = batteryLevel
        self.wifi = wifi
    }

    /// What a device with no battery and no Wi-Fi reports.
    public static let none = DeviceSnapshot()
}
