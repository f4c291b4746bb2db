import OverlandJSON

/// An action record (protocol section 1): something the tracker did, such as pausing.
/// It has no geometry, which some receivers dislike (GeoPulse fails a whole batch on it),
/// so the logger writes these only while "include tracking stats" is on.
public struct ActionRecord: Sendable, Equatable {
    /// `paused_location_updates`, `resumed_location_updates`, `exited_pause_region`.
    public var action: String
    public var timestamp: Int64
    public var device: DeviceMetadata

    public init(action: String, timestamp: Int64, device: DeviceMetadata) {
        self.action = action
        self.timestamp = timestamp
        self.device = device
    }

    /// One line of compact JSON, without the newline.
    public func jsonLine() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256)
        writer.appendRaw(#"{"type":"Feature","geometry":null,"properties":{"action":"#)
        writer.appendString(action)
        writer.appendRaw(#","timestamp":""#)
        ISO8601UTC.append(timestamp, to: &writer.bytes)
        writer.appendRaw(#"""#)
        device.encode(into: &writer)
        writer.appendRaw("}}")
        return writer.bytes
    }
}

/// A visit record (protocol section 1): a stay at one place, written on arrival (no
/// departure yet) and again on departure, as the phone's visit monitoring reports.
public struct VisitRecord: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var arrival: Int64
    public var departure: Int64?
    /// Radius of the visit's region, metres.
    public var horizontalAccuracy: Int
    public var device: DeviceMetadata

    public init(latitude: Double, longitude: Double, arrival: Int64, departure: Int64?, horizontalAccuracy: Int, device: DeviceMetadata) {
        self.latitude = latitude
        self.longitude = longitude
        self.arrival = arrival
        self.departure = departure
        self.horizontalAccuracy = horizontalAccuracy
        self.device = device
    }

    /// One line of compact JSON, without the newline; `timestamp` is the departure, else
    /// the arrival.
    public func jsonLine() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 384)
        writer.appendRaw(#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#)
        writer.appendDecimal(longitude, maxFractionDigits: 7)
        writer.appendRaw(",")
        writer.appendDecimal(latitude, maxFractionDigits: 7)
        writer.appendRaw(#"]},"properties":{"action":"visit","arrival_date":""#)
        ISO8601UTC.append(arrival, to: &writer.bytes)
        writer.appendRaw(#"","departure_date":"#)
        if let departure {
            writer.appendRaw(#"""#)
            ISO8601UTC.append(departure, to: &writer.bytes)
            writer.appendRaw(#"""#)
        } else {
            writer.appendNull()
        }
        writer.appendRaw(#","horizontal_accuracy":"#)
        writer.appendInteger(horizontalAccuracy)
        writer.appendRaw(#","timestamp":""#)
        ISO8601UTC.append(departure ?? arrival, to: &writer.bytes)
        writer.appendRaw(#"""#)
        device.encode(into: &writer)
        writer.appendRaw("}}")
        return writer.bytes
    }
}

/// The device metadata every record carries: device id, battery, Wi-Fi.
public struct DeviceMetadata: Sendable, Equatable {
    public var deviceID: String
    public var batteryState: BatteryState
    public var batteryLevel: Double
    public var wifi: String

    public init(deviceID: String, batteryState: BatteryState, batteryLevel: Double, wifi: String) {
        self.deviceID = deviceID
        self.batteryState = batteryState
        self.batteryLevel = batteryLevel
        self.wifi = wifi
    }

    /// Appends `,"device_id":...,"battery_state":...,"battery_level":...,"wifi":...`.
    func encode(into writer: inout JSONWriter) {
        writer.appendRaw(#","device_id":"#)
        writer.appendString(deviceID)
        writer.appendRaw(#","battery_state":"#)
        writer.appendString(batteryState.rawValue)
        writer.appendRaw(#","battery_level":"#)
        writer.appendDecimal(!(batteryLevel > 0) ? 0 : min(batteryLevel, 1), maxFractionDigits: 2)
        writer.appendRaw(#","wifi":"#)
        writer.appendString(wifi)
    }
}
