import OverlandJSON

/// An OwnTracks location message, the body of an upload in the `owntracks` logging mode
/// (protocol reference, section 6):
///
///     {"_type":"location","lat":45.490975,"lon":-77.696315,"tst":1443711600,"acc":5,
///      "alt":12,"vel":15,"cog":271,"batt":80,"bs":1,"tid":"ne","topic":"owntracks/alice/phone"}
///
/// `tst` is Unix-epoch seconds (the phone app's seconds-since-2001 is a flaw not copied).
/// `vel` is km/h rounded to an integer. Values the point does not know are left out rather
/// than sent as -1 or 0: `acc` (unknown accuracy), `alt` (unknown altitude:
/// `LocationFeature.knownAltitude`), `vel` (unknown speed), `cog` (unknown course), and
/// `batt` and `bs` (battery state unknown). `bs` is OwnTracks' battery status:
/// 1 unplugged, 2 charging, 3 full. `conn` is `w` when the point names a Wi-Fi network
/// and left out otherwise: an empty `wifi` cannot tell mobile data from a cable or no
/// network at all, and the SSID itself is not sent.
public struct OwnTracksLocation: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    /// Unix-epoch seconds.
    public var timestamp: Int64
    /// Horizontal accuracy in metres, nil when unknown.
    public var accuracy: Int?
    /// Metres above sea level, nil when unknown.
    public var altitude: Int?
    /// Speed in km/h, nil when unknown.
    public var velocity: Int?
    /// Course over ground in degrees, nil when unknown.
    public var course: Int?
    /// Battery charge in percent, nil when unknown.
    public var batteryPercent: Int?
    /// OwnTracks battery status (1 unplugged, 2 charging, 3 full), nil when unknown.
    public var batteryStatus: Int?
    /// The two-character tracker id, nil to leave it out.
    public var trackerID: String?
    /// The topic, `owntracks/<device id>`.
    public var topic: String
    /// OwnTracks' connectivity (`conn`): `w` on Wi-Fi, nil when unknown.
    public var connectivity: String?
    /// What made the device report (`t`): `r` answers a `reportLocation` command, `u` a
    /// user's request; nil leaves it out, which OwnTracks reads as an automatic report.
    public var trigger: String?

    /// The message for `point` from the device `identity`.
    public init(point: LocationFeature, identity: OwnTracksIdentity) {
        latitude = point.latitude
        longitude = point.longitude
        timestamp = point.timestamp
        // A known accuracy is at least 1 m: Home Assistant ignores a location of `acc` 0.
        accuracy = point.horizontalAccuracy >= 0 ? max(point.horizontalAccuracy, 1) : nil
        altitude = point.knownAltitude
        velocity = point.speed >= 0 ? CheckedInteger.rounded(point.speed * 3.6, in: 0...Int(Int32.max)) : nil
        course = point.course >= 0 ? point.course : nil
        switch point.batteryState {
        case .unknown:
            batteryPercent = nil
            batteryStatus = nil
        case .unplugged, .charging, .full:
            let level = !(point.batteryLevel > 0) ? 0 : min(point.batteryLevel, 1)
            batteryPercent = CheckedInteger.rounded(level * 100)
            batteryStatus = point.batteryState == .unplugged ? 1 : point.batteryState == .charging ? 2 : 3
        }
        trackerID = identity.trackerID
        topic = identity.topic
        trigger = nil
        connectivity = point.wifi.isEmpty ? nil : "w"
    }

    /// The message as compact JSON, keys in the order of the protocol reference.
    public func jsonBody() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256)
        writer.appendRaw(#"{"_type":"location","lat":"#)
        writer.appendDecimal(latitude, maxFractionDigits: 7)
        writer.appendRaw(#","lon":"#)
        writer.appendDecimal(longitude, maxFractionDigits: 7)
        writer.appendRaw(#","tst":"#)
        writer.appendInteger(timestamp)
        if let accuracy {
            writer.appendRaw(#","acc":"#)
            writer.appendInteger(accuracy)
        }
        if let altitude {
            writer.appendRaw(#","alt":"#)
            writer.appendInteger(altitude)
        }
        if let velocity {
            writer.appendRaw(#","vel":"#)
            writer.appendInteger(velocity)
        }
        if let course {
            writer.appendRaw(#","cog":"#)
            writer.appendInteger(course)
        }
        if let batteryPercent {
            writer.appendRaw(#","batt":"#)
            writer.appendInteger(batteryPercent)
        }
        if let batteryStatus {
            writer.appendRaw(#","bs":"#)
            writer.appendInteger(batteryStatus)
        }
        if let trackerID {
            writer.appendRaw(#","tid":"#)
            writer.appendString(trackerID)
        }
        if let connectivity {
            writer.appendRaw(#","conn":"#)
            writer.appendString(connectivity)
        }
        if let trigger {
            writer.appendRaw(#","t":"#)
            writer.appendString(trigger)
        }
        writer.appendRaw(#","topic":"#)
        writer.appendString(topic)
        writer.appendRaw("}")
        return writer.bytes
    }
}
