import OverlandJSON

/// One position in the JSON form of Traccar's OsmAnd protocol, as Traccar Client 9 sends
/// it (Traccar's `OsmAndProtocolDecoder`, JSON branch, chosen by `Content-Type:
/// application/json`):
///
///     {"location":{"timestamp":"2015-10-01T15:00:00Z",
///                  "coords":{"latitude":45.4909750,"longitude":-77.6963150,"accuracy":5,
///                            "speed":4.25,"heading":271,"altitude":12},
///                  "is_moving":true,"odometer":0,
///                  "battery":{"level":0.8,"is_charging":false}},
///      "device_id":"van"}
///
/// Units are the decoder's: degrees, metres (accuracy, altitude), metres per second
/// (speed; Traccar converts to knots), degrees clockwise from north (heading), battery
/// level 0 to 1 (Traccar stores `level * 100` as a percentage). The decoder reads every
/// member of `coords` unconditionally (a missing one fails the request), so all six are
/// always written, with -1 for an unknown speed, heading or accuracy: Traccar ignores a
/// negative speed and heading and an accuracy below its minimum (0 unless configured).
/// `battery` is read whole too: an unknown level is -1 (ignored), and `is_charging` is
/// true while charging or full (on external power). `is_moving` becomes Traccar's
/// `motion`: true when the point's motion names a way of moving, false when it says
/// stationary, and otherwise whether the speed is over 0.5 m/s. `odometer` is Traccar
/// Client's distance counter; this logger keeps none, so it is left out (the decoder
/// reads it only when present).
public struct TraccarPosition: Sendable, Equatable {
    public var timestamp: Int64
    public var latitude: Double
    public var longitude: Double
    /// Metres, -1 when unknown.
    public var accuracy: Int
    /// Metres per second, -1 when unknown.
    public var speed: Double
    /// Degrees, -1 when unknown.
    public var heading: Int
    /// Metres above sea level.
    public var altitude: Int
    public var isMoving: Bool
    /// 0 to 1, -1 when unknown.
    public var batteryLevel: Double
    public var isCharging: Bool
    /// Traccar's device identifier (the device's "identifier" in Traccar's web interface).
    public var deviceID: String

    /// The position of `point`, from the device Traccar knows as `deviceID`.
    public init(point: LocationFeature, deviceID: String) {
        timestamp = point.timestamp
        latitude = point.latitude
        longitude = point.longitude
        accuracy = point.horizontalAccuracy >= 0 ? point.horizontalAccuracy : -1
        speed = point.speed >= 0 && point.speed.isFinite ? point.speed : -1
        heading = point.course >= 0 ? point.course : -1
        altitude = point.altitude
        if point.motion.contains(where: { $0 != .stationary }) {
            isMoving = true
        } else if point.motion.contains(.stationary) {
            isMoving = false
        } else {
            isMoving = speed > 0.5
        }
        switch point.batteryState {
        case .unknown:
            batteryLevel = -1
            isCharging = false
        case .unplugged, .charging, .full:
            batteryLevel = point.batteryLevel >= 0 ? min(point.batteryLevel, 1) : -1
            isCharging = point.batteryState != .unplugged
        }
        self.deviceID = deviceID
    }

    /// The request body, compact JSON.
    public func jsonBody() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 320)
        writer.appendRaw(#"{"location":{"timestamp":"#)
        writer.appendString(ISO8601UTC.string(from: timestamp))
        writer.appendRaw(#","coords":{"latitude":"#)
        writer.appendDecimal(latitude, maxFractionDigits: 7)
        writer.appendRaw(#","longitude":"#)
        writer.appendDecimal(longitude, maxFractionDigits: 7)
        writer.appendRaw(#","accuracy":"#)
        writer.appendInteger(accuracy)
        writer.appendRaw(#","speed":"#)
        writer.appendDecimal(speed, maxFractionDigits: 2)
        writer.appendRaw(#","heading":"#)
        writer.appendInteger(heading)
        writer.appendRaw(#","altitude":"#)
        writer.appendInteger(altitude)
        writer.appendRaw(#"},"is_moving":"#)
        writer.appendBool(isMoving)
        writer.appendRaw(#","battery":{"level":"#)
        writer.appendDecimal(batteryLevel, maxFractionDigits: 2)
        writer.appendRaw(#","is_charging":"#)
        writer.appendBool(isCharging)
        writer.appendRaw(#"}},"device_id":"#)
        writer.appendString(deviceID)
        writer.appendRaw("}")
        return writer.bytes
    }
}
