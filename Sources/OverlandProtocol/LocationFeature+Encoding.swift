import OverlandJSON

extension LocationFeature {
    /// Appends this feature to `buffer` as one line of compact JSON, without the newline.
    ///
    /// Keys come in the order of the protocol reference; `unique_id`, `trip_id` and the
    /// tracking stats only when set. Values the protocol cannot carry are mapped rather
    /// than written raw: a negative or non-finite speed, course or accuracy becomes -1
    /// (unknown); the battery level is clamped to 0...1 (non-finite becomes 0); a
    /// non-finite coordinate becomes 0.
    public func encodeJSONLine(into buffer: inout [UInt8], options: FeatureEncodingOptions = .standard) {
        // Borrow the caller's storage for the writer and hand it back: no copy.
        var writer = JSONWriter()
        swap(&writer.bytes, &buffer)
        encode(into: &writer, options: options)
        swap(&writer.bytes, &buffer)
    }

    /// This feature as one line of compact JSON, without the newline.
    public func jsonLine(options: FeatureEncodingOptions = .standard) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512)
        encode(into: &writer, options: options)
        return writer.bytes
    }

    /// Appends this feature as a JSON object to `writer`, as `encodeJSONLine` does; for
    /// bodies that embed features.
    public func encode(into writer: inout JSONWriter, options: FeatureEncodingOptions = .standard) {
        writer.appendRaw(#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#)
        writer.appendDecimal(longitude, maxFractionDigits: 7)
        writer.appendRaw(",")
        writer.appendDecimal(latitude, maxFractionDigits: 7)
        writer.appendRaw(#"]},"properties":{"timestamp":""#)
        ISO8601UTC.append(timestamp, to: &writer.bytes)
        writer.appendRaw(#"","altitude":"#)
        writer.appendInteger(altitude)
        writer.appendRaw(#","speed":"#)
        Self.appendMeasure(speed, integer: options.integerSpeed, to: &writer)
        writer.appendRaw(#","course":"#)
        writer.appendInteger(Self.orUnknown(course))
        writer.appendRaw(#","horizontal_accuracy":"#)
        writer.appendInteger(Self.orUnknown(horizontalAccuracy))
        writer.appendRaw(#","vertical_accuracy":"#)
        writer.appendInteger(Self.orUnknown(verticalAccuracy))
        writer.appendRaw(#","speed_accuracy":"#)
        Self.appendMeasure(speedAccuracy, integer: options.integerAccuracies, to: &writer)
        writer.appendRaw(#","course_accuracy":"#)
        Self.appendMeasure(courseAccuracy, integer: options.integerAccuracies, to: &writer)
        writer.appendRaw(#","motion":["#)
        for (index, kind) in motion.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendRaw(kind.quotedName)
        }
        writer.appendRaw(#"],"battery_state":"#)
        writer.appendRaw(batteryState.quotedName)
        writer.appendRaw(#","battery_level":"#)
        // Written `!(x > 0)` so that NaN lands on 0 too.
        let level = !(batteryLevel > 0) ? 0 : min(batteryLevel, 1)
        writer.appendDecimal(level, maxFractionDigits: 2)
        writer.appendRaw(#","wifi":"#)
        writer.appendString(wifi)
        writer.appendRaw(#","device_id":"#)
        writer.appendString(deviceID)
        if let uniqueID {
            writer.appendRaw(#","unique_id":"#)
            writer.appendString(uniqueID)
        }
        if let tripID {
            writer.appendRaw(#","trip_id":"#)
            writer.appendString(tripID)
        }
        if let trackingStats {
            writer.appendRaw(#","pauses":"#)
            writer.appendBool(trackingStats.pauses)
            writer.appendRaw(#","activity":"#)
            writer.appendString(trackingStats.activity)
            writer.appendRaw(#","desired_accuracy":"#)
            writer.appendInteger(trackingStats.desiredAccuracy)
            writer.appendRaw(#","deferred":"#)
            writer.appendInteger(trackingStats.deferred)
            writer.appendRaw(#","significant_change":"#)
            writer.appendString(trackingStats.significantChange)
            writer.appendRaw(#","locations_in_payload":"#)
            writer.appendInteger(trackingStats.locationsInPayload)
        }
        writer.appendRaw("}}")
    }

    /// Writes a measure with 2 decimals (or none), or -1 when it is unknown or unusable.
    @inline(__always)
    private static func appendMeasure(_ value: Double, integer: Bool, to writer: inout JSONWriter) {
        // `!(x >= 0)` also catches NaN; infinity is no measure either.
        if !(value >= 0) || value == .infinity {
            writer.appendRaw("-1")
        } else {
            writer.appendDecimal(value, maxFractionDigits: integer ? 0 : 2)
        }
    }

    @inline(__always)
    private static func orUnknown(_ value: Int) -> Int {
        value < 0 ? -1 : value
    }
}

extension Motion {
    /// The JSON string literal for this motion, quotes included.
    var quotedName: StaticString {
        switch self {
        case .driving: #""driving""#
        case .walking: #""walking""#
        case .running: #""running""#
        case .cycling: #""cycling""#
        case .stationary: #""stationary""#
        }
    }
}

extension BatteryState {
    /// The JSON string literal for this state, quotes included.
    var quotedName: StaticString {
        switch self {
        case .unknown: #""unknown""#
        case .charging: #""charging""#
        case .full: #""full""#
        case .unplugged: #""unplugged""#
        }
    }
}
