import OverlandJSON

extension LocationFeature {
    /// Appends this feature to `buffer` as one line of compact JSON, without the newline.
    ///
    /// Keys come in the order of the protocol reference; `unique_id`, `trip_id` and the
    /// tracking stats only when set. Values the protocol cannot carry are mapped rather
    /// than written raw: a negative or non-finite speed, course or accuracy becomes -1
    /// (unknown); the battery level is clamped to 0...1 (non-finite becomes 0); a
    /// non-finite coordinate becomes 0; a known speed or course accuracy is never written
    /// as the whole number 0.
    public func encodeJSONLine(into buffer: inout [UInt8], options: FeatureEncodingOptions = .standard) {
        // Borrow the caller's storage for the writer and hand it back: no copy.
        var writer = JSONWriter()
        swap(&writer.bytes, &buffer)
        encode(into: &writer, options: options)
        swap(&writer.bytes, &buffer)
    }

    /// This feature as one line of compact JSON, without the newline.
    public func jsonLine(options: FeatureEncodingOptions = .standard) -> [UInt8] {
        // No capacity up front: `encode` reserves its own bound in one go.
        var writer = JSONWriter()
        encode(into: &writer, options: options)
        return writer.bytes
    }

    /// Appends this feature as a JSON object to `writer`, as `encodeJSONLine` does; for
    /// bodies that embed features.
    public func encode(into writer: inout JSONWriter, options: FeatureEncodingOptions = .standard) {
        // One reservation for the whole object, then pointer writes: this runs for every
        // point the logger records.
        writer.append(atMost: maximumEncodedLength) { output in
            output.appendRaw(#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#)
            output.appendDecimal(longitude, maxFractionDigits: 7)
            output.appendRaw(",")
            output.appendDecimal(latitude, maxFractionDigits: 7)
            output.appendRaw(#"]},"properties":{"timestamp":""#)
            output.appendTimestamp(timestamp)
            output.appendRaw(#"","altitude":"#)
            output.appendInteger(Int64(altitude))
            output.appendRaw(#","speed":"#)
            Self.appendMeasure(speed, integer: options.integerSpeed, to: &output)
            output.appendRaw(#","course":"#)
            output.appendInteger(Self.orUnknown(course))
            output.appendRaw(#","horizontal_accuracy":"#)
            output.appendInteger(Self.orUnknown(horizontalAccuracy))
            output.appendRaw(#","vertical_accuracy":"#)
            output.appendInteger(Self.orUnknown(verticalAccuracy))
            output.appendRaw(#","speed_accuracy":"#)
            Self.appendAccuracy(speedAccuracy, integer: options.integerAccuracies, to: &output)
            output.appendRaw(#","course_accuracy":"#)
            Self.appendAccuracy(courseAccuracy, integer: options.integerAccuracies, to: &output)
            output.appendRaw(#","motion":["#)
            for (index, kind) in motion.enumerated() {
                if index > 0 { output.appendRaw(",") }
                output.appendRaw(kind.quotedName)
            }
            output.appendRaw(#"],"battery_state":"#)
            output.appendRaw(batteryState.quotedName)
            output.appendRaw(#","battery_level":"#)
            output.appendDecimal(Self.clampedLevel(batteryLevel), maxFractionDigits: 2)
            output.appendRaw(#","wifi":"#)
            output.appendString(wifi)
            output.appendRaw(#","device_id":"#)
            output.appendString(deviceID)
            if let uniqueID {
                output.appendRaw(#","unique_id":"#)
                output.appendString(uniqueID)
            }
            if let tripID {
                output.appendRaw(#","trip_id":"#)
                output.appendString(tripID)
            }
            if let trackingStats {
                output.appendRaw(#","pauses":"#)
                output.appendBool(trackingStats.pauses)
                output.appendRaw(#","activity":"#)
                output.appendString(trackingStats.activity)
                output.appendRaw(#","desired_accuracy":"#)
                output.appendInteger(Int64(trackingStats.desiredAccuracy))
                output.appendRaw(#","deferred":"#)
                output.appendInteger(Int64(trackingStats.deferred))
                output.appendRaw(#","significant_change":"#)
                output.appendString(trackingStats.significantChange)
                output.appendRaw(#","locations_in_payload":"#)
                output.appendInteger(Int64(trackingStats.locationsInPayload))
            }
            output.appendRaw("}}")
        }
    }

    /// The most bytes `encode` can write for this feature, whatever the options: what
    /// it reserves up front.
    var maximumEncodedLength: Int {
        typealias Cursor = UnsafeJSONCursor
        // The keys and punctuation of every line come to 273 bytes, the longest battery
        // state to 11; 300 leaves room to spare. Measures and integers that print as -1
        // are shorter than any bound below.
        var length = 300
        length += Cursor.maximumDecimalLength(longitude) + Cursor.maximumDecimalLength(latitude)
        length += ISO8601UTC.formattedLength + 4 * Cursor.maximumIntegerLength
        length += Cursor.maximumDecimalLength(speed) + Cursor.maximumDecimalLength(speedAccuracy)
        length += Cursor.maximumDecimalLength(courseAccuracy) + Cursor.maximumDecimalLength(Self.clampedLevel(batteryLevel))
        // `"stationary"` and a comma.
        length += 13 * motion.count
        length += Cursor.maximumStringLength(wifi) + Cursor.maximumStringLength(deviceID)
        if let uniqueID { length += 14 + Cursor.maximumStringLength(uniqueID) }
        if let tripID { length += 12 + Cursor.maximumStringLength(tripID) }
        if let trackingStats {
            // 100 bytes of keys and punctuation, 5 for `false`.
            length += 120 + 3 * Cursor.maximumIntegerLength
            length += Cursor.maximumStringLength(trackingStats.activity)
            length += Cursor.maximumStringLength(trackingStats.significantChange)
        }
        return length
    }

    /// Writes a measure with 2 decimals (or none), or -1 when it is unknown or unusable.
    @inline(__always)
    private static func appendMeasure(_ value: Double, integer: Bool, to output: inout UnsafeJSONCursor) {
        // `!(x >= 0)` also catches NaN; infinity is no measure either.
        if !(value >= 0) || value == .infinity {
            output.appendRaw("-1")
        } else {
            output.appendDecimal(value, maxFractionDigits: integer ? 0 : 2)
        }
    }

    /// Writes an accuracy as `appendMeasure` does, except that as a whole number a known
    /// one is never 0 but at least 1 (``wholeAccuracy(_:)``). (With 2 decimals the value is
    /// written as it is: the recorder logs a known one as 0.01 at least.)
    @inline(__always)
    private static func appendAccuracy(_ value: Double, integer: Bool, to output: inout UnsafeJSONCursor) {
        if integer, let whole = wholeAccuracy(value) {
            output.appendInteger(Int64(whole))
        } else {
            appendMeasure(value, integer: integer, to: &output)
        }
    }

    @inline(__always)
    private static func orUnknown(_ value: Int) -> Int64 {
        value < 0 ? -1 : Int64(value)
    }

    /// The battery level as written: clamped to 0...1, NaN as 0.
    @inline(__always)
    private static func clampedLevel(_ level: Double) -> Double {
        // Written `!(x > 0)` so that NaN lands on 0 too.
        !(level > 0) ? 0 : min(level, 1)
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
