import OverlandJSON

extension HomeAssistantDiscovery {
    /// The JSON attributes of the tracker for one point, published to the
    /// `json_attributes_topic` of `deviceTracker(...)`:
    ///
    ///     {"latitude":45.490975,"longitude":-77.696315,"gps_accuracy":5,"altitude":12,
    ///      "velocity":15,"course":271,"battery_level":80,"battery_status":"unplugged",
    ///      "timestamp":"2015-10-01T15:00:00Z"}
    ///
    /// `latitude`, `longitude` and `gps_accuracy` place the tracker (Home Assistant's names);
    /// `battery_level` is Home Assistant's battery attribute, in percent. The others are
    /// shown as attributes, with OwnTracks' units (`velocity` km/h). Unknown values are
    /// left out, as in the OwnTracks message; `gps_accuracy` too, which Home Assistant then
    /// takes as 0.
    public static func attributes(for point: LocationFeature) -> [UInt8] {
        let owntracks = OwnTracksLocation(point: point, identity: OwnTracksIdentity(deviceID: ""))
        var writer = JSONWriter(reservingCapacity: 256)
        writer.appendRaw(#"{"latitude":"#)
        writer.appendDecimal(point.latitude, maxFractionDigits: 7)
        writer.appendRaw(#","longitude":"#)
        writer.appendDecimal(point.longitude, maxFractionDigits: 7)
        if let accuracy = owntracks.accuracy {
            writer.appendRaw(#","gps_accuracy":"#)
            writer.appendInteger(accuracy)
        }
        if let altitude = owntracks.altitude {
            writer.appendRaw(#","altitude":"#)
            writer.appendInteger(altitude)
        }
        if let velocity = owntracks.velocity {
            writer.appendRaw(#","velocity":"#)
            writer.appendInteger(velocity)
        }
        if let course = owntracks.course {
            writer.appendRaw(#","course":"#)
            writer.appendInteger(course)
        }
        if let battery = owntracks.batteryPercent {
            writer.appendRaw(#","battery_level":"#)
            writer.appendInteger(battery)
            writer.appendRaw(#","battery_status":"#)
            writer.appendString(point.batteryState.rawValue)
        }
        writer.appendRaw(#","timestamp":""#)
        ISO8601UTC.append(point.timestamp, to: &writer.bytes)
        writer.appendRaw(#""}"#)
        return writer.bytes
    }

    /// The attributes for a journal record, or nil when it is not a location.
    public static func attributes(forRecord line: ArraySlice<UInt8>) -> [UInt8]? {
        guard let json = try? JSONParser.parse(line, limits: OwnTracksMessage.recordLimits),
              let point = try? LocationFeature(json: json) else { return nil }
        return attributes(for: point)
    }
}
