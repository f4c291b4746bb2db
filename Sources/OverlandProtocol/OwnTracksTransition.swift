import OverlandJSON

/// An OwnTracks `transition` message (booklet, "JSON", `_type=transition`): the device
/// entered or left a region. Published, not retained, to `TOPIC/event`:
///
///     {"_type":"transition","wtst":1443700000,"lat":45.490975,"lon":-77.696315,
///      "tst":1443711600,"acc":50,"event":"leave","desc":"visit","t":"c","tid":"ne"}
///
/// Made from a visit record: the region is the circle the stay was detected in (its
/// centre and `horizontal_accuracy`), created on arrival, so `wtst` (the waypoint's
/// creation time, the key OwnTracks pairs an enter with its leave by) is the arrival for
/// both events; `tst` is the arrival for `enter` and the departure for `leave`.
public struct OwnTracksTransition: Sendable, Equatable {
    /// `enter` or `leave`.
    public enum Event: String, Sendable {
        case enter, leave
    }

    /// The name every visit region carries. One name for all: Home Assistant's OwnTracks
    /// integration keeps a list of regions entered by name (holding the tracker there until
    /// the leave) and matches names to its zones; with one name, a departure that was never
    /// recorded is healed by the next visit's leave, and no zone is invented.
    public static let visitRegionName = "visit"

    public var event: Event
    /// When the region was created (the arrival), Unix seconds.
    public var waypointTimestamp: Int64
    /// When the event happened, Unix seconds.
    public var timestamp: Int64
    public var latitude: Double
    public var longitude: Double
    /// Metres: the region's radius.
    public var accuracy: Int
    /// The region's name (`desc`).
    public var regionName: String
    public var trackerID: String?

    /// The message for `visit`'s arrival (`enter`) or, when it has one, departure (`leave`).
    public init(visit: VisitRecord, event: Event, trackerID: String?) {
        self.event = event
        waypointTimestamp = visit.arrival
        timestamp = event == .leave ? (visit.departure ?? visit.arrival) : visit.arrival
        latitude = visit.latitude
        longitude = visit.longitude
        accuracy = max(visit.horizontalAccuracy, 0)
        regionName = Self.visitRegionName
        self.trackerID = trackerID
    }

    /// The message as compact JSON, keys in the order of the booklet's example.
    public func jsonBody() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 192)
        writer.appendRaw(#"{"_type":"transition","wtst":"#)
        writer.appendInteger(waypointTimestamp)
        writer.appendRaw(#","lat":"#)
        writer.appendDecimal(latitude, maxFractionDigits: 7)
        writer.appendRaw(#","lon":"#)
        writer.appendDecimal(longitude, maxFractionDigits: 7)
        writer.appendRaw(#","tst":"#)
        writer.appendInteger(timestamp)
        writer.appendRaw(#","acc":"#)
        writer.appendInteger(accuracy)
        writer.appendRaw(#","event":"#)
        writer.appendString(event.rawValue)
        writer.appendRaw(#","desc":"#)
        writer.appendString(regionName)
        writer.appendRaw(#","t":"c""#)
        if let trackerID {
            writer.appendRaw(#","tid":"#)
            writer.appendString(trackerID)
        }
        writer.appendRaw("}")
        return writer.bytes
    }
}
