import OverlandJSON

/// The record written when a trip stops (protocol section 1, "Trip record"): a Feature at
/// the last known position whose properties describe the trip.
public struct TripRecord: Sendable, Equatable {
    /// One of the protocol's 15 trip modes ("car", "walk", ...).
    public var mode: String
    /// Start and end, Unix seconds UTC.
    public var start: Int64
    public var end: Int64
    /// The trip's first and last points, as stored location Feature JSON (nil: none).
    public var startLocation: [UInt8]?
    public var endLocation: [UInt8]?
    /// Metres, over the trip's points of horizontal accuracy 200 m or better.
    public var distance: Double
    public var stoppedAutomatically: Bool
    /// The geometry: the last known position (nil: none known, written as null).
    public var longitude: Double?
    public var latitude: Double?
    public var device: DeviceMetadata

    public init(mode: String, start: Int64, end: Int64, startLocation: [UInt8]?, endLocation: [UInt8]?,
                distance: Double, stoppedAutomatically: Bool, longitude: Double?, latitude: Double?,
                device: DeviceMetadata) {
        self.mode = mode
        self.start = start
        self.end = end
        self.startLocation = startLocation
        self.endLocation = endLocation
        self.distance = distance
        self.stoppedAutomatically = stoppedAutomatically
        self.longitude = longitude
        self.latitude = latitude
        self.device = device
    }

    /// The record as one line of compact JSON, without the newline. Keys in the order of
    /// the protocol reference; `steps` is 0 (not measured); duration and distance are
    /// whole seconds and metres.
    public func jsonLine() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 1536)
        writer.appendRaw(#"{"type":"Feature","geometry":"#)
        if let longitude, let latitude {
            writer.appendRaw(#"{"type":"Point","coordinates":["#)
            writer.appendDecimal(longitude, maxFractionDigits: 7)
            writer.appendRaw(",")
            writer.appendDecimal(latitude, maxFractionDigits: 7)
            writer.appendRaw("]}")
        } else {
            writer.appendNull()
        }
        writer.appendRaw(#","properties":{"type":"trip","mode":"#)
        writer.appendString(mode)
        writer.appendRaw(#","start":""#)
        ISO8601UTC.append(start, to: &writer.bytes)
        writer.appendRaw(#"","end":""#)
        ISO8601UTC.append(end, to: &writer.bytes)
        writer.appendRaw(#"","start_location":"#)
        if let startLocation { writer.appendRaw(startLocation) } else { writer.appendNull() }
        writer.appendRaw(#","end_location":"#)
        if let endLocation { writer.appendRaw(endLocation) } else { writer.appendNull() }
        writer.appendRaw(#","duration":"#)
        writer.appendInteger(max(end - start, 0))
        writer.appendRaw(#","distance":"#)
        writer.appendInteger(Self.wholeMetres(distance))
        writer.appendRaw(#","stopped_automatically":"#)
        writer.appendBool(stoppedAutomatically)
        writer.appendRaw(#","steps":0,"timestamp":""#)
        ISO8601UTC.append(end, to: &writer.bytes)
        writer.appendRaw(#"""#)
        device.encode(into: &writer)
        writer.appendRaw("}}")
        return writer.bytes
    }

    /// A trip distance as the protocol writes it: whole metres, rounded half away from
    /// zero; 0 for a distance that is negative or no number, and at most 2^31 - 1 (a sum
    /// over a hand-edited journal must not trap the reader).
    public static func wholeMetres(_ distance: Double) -> Int64 {
        Int64(CheckedInteger.rounded(min(max(distance, 0), Double(Int32.max))) ?? 0)
    }
}

/// The `trip` object every request carries while a trip is active (protocol section 4).
public struct TripProgress: Sendable, Equatable {
    public var mode: String
    public var start: Int64
    public var distance: Double
    /// Stored location Feature JSON of the trip's first and latest points.
    public var startLocation: [UInt8]?
    public var currentLocation: [UInt8]?

    public init(mode: String, start: Int64, distance: Double, startLocation: [UInt8]?, currentLocation: [UInt8]?) {
        self.mode = mode
        self.start = start
        self.distance = distance
        self.startLocation = startLocation
        self.currentLocation = currentLocation
    }

    /// The object's JSON.
    public func json() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 1280)
        writer.appendRaw(#"{"mode":"#)
        writer.appendString(mode)
        writer.appendRaw(#","start":""#)
        ISO8601UTC.append(start, to: &writer.bytes)
        writer.appendRaw(#"","distance":"#)
        writer.appendInteger(TripRecord.wholeMetres(distance))
        writer.appendRaw(#","start_location":"#)
        if let startLocation { writer.appendRaw(startLocation) } else { writer.appendNull() }
        writer.appendRaw(#","current_location":"#)
        if let currentLocation { writer.appendRaw(currentLocation) } else { writer.appendNull() }
        writer.appendRaw("}")
        return writer.bytes
    }
}
