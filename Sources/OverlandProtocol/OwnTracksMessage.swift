import OverlandJSON

/// One MQTT publish of the `mqtt` protocol: a topic, an OwnTracks JSON payload, and the
/// retain flag. QoS is the sender's (1 for everything drawn from the journal).
///
/// `messages(forRecord:identity:topic:)` maps each record kind of the journal to what
/// OwnTracks has for it (booklet, "JSON"):
///
/// | record                          | messages                                          |
/// |---------------------------------|---------------------------------------------------|
/// | location Feature                | one `location` on `TOPIC`                         |
/// | visit, arrival (no departure)   | one `transition`, `event` `enter`, on `TOPIC/event` |
/// | visit, departure                | one `transition`, `event` `leave`, on `TOPIC/event` |
/// | trip record                     | none                                              |
/// | action (pause, resume, exit)    | none                                              |
/// | anything unreadable             | none                                              |
///
/// Why: a visit is a stay inside a circle, detected on arrival and closed on departure,
/// which is what an OwnTracks region is and what its `transition` messages report. No
/// `waypoint` is published for it: waypoints are regions a person defines and names, and
/// Home Assistant's OwnTracks integration imports each one as a zone (its `waypoints`
/// option is on by default), so every stop would become a permanent zone. A trip has no
/// OwnTracks counterpart (the apps have no trips; the trip's points have already gone as
/// `location` messages, and a made-up transition would move Home Assistant's tracker
/// into a zone named after it). Pausing and resuming are the logger's own bookkeeping,
/// with no position; OwnTracks has no message for a change of monitoring mode.
public struct OwnTracksMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var retained: Bool

    public init(topic: String, payload: [UInt8], retained: Bool) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }

    /// The bounds a stored record is parsed with: a record is a few hundred bytes, a trip
    /// record with its two embedded points a few kilobytes.
    static let recordLimits = JSONLimits(maxDepth: 8, maxBytes: 1 << 20, maxStringBytes: 64 << 10)

    /// The messages for one journal record (a line of `journal-format.md`, with or
    /// without its newline), in the order to publish them; empty for a record OwnTracks
    /// has no message for (see the table above) or one that cannot be read.
    ///
    /// A location uses the encoder of the HTTP `owntracks` mode (`OwnTracksLocation`), with
    /// the payload's `topic` set to the topic it is published to. `retainLocation` sets
    /// the retain flag of `location` messages (the `latest` mode retains, as OwnTracks
    /// apps do with `pubRetain`); transitions are never retained, as in the apps.
    public static func messages(
        forRecord line: ArraySlice<UInt8>, identity: OwnTracksIdentity, topic: OwnTracksTopic,
        retainLocation: Bool = false
    ) -> [OwnTracksMessage] {
        // Most records are plain locations: read without a tree (a third of a drain's CPU
        // went to building it); any other line goes through the tree, which decides.
        if let point = LocationFeature.readingLine(line) {
            return [location(point, identity: identity, topic: topic, retained: retainLocation)]
        }
        guard let json = try? JSONParser.parse(line, limits: recordLimits) else { return [] }
        if let point = try? LocationFeature(json: json) {
            return [location(point, identity: identity, topic: topic, retained: retainLocation)]
        }
        if let visit = try? VisitRecord(json: json) {
            let event: OwnTracksTransition.Event = visit.departure == nil ? .enter : .leave
            let transition = OwnTracksTransition(visit: visit, event: event, trackerID: identity.trackerID)
            return [OwnTracksMessage(topic: topic.event, payload: transition.jsonBody(), retained: false)]
        }
        return []
    }

    /// The `location` message for `point`; `trigger` is OwnTracks' `t` (`"r"` for the
    /// answer to a `reportLocation` command), left out when nil.
    public static func location(
        _ point: LocationFeature, identity: OwnTracksIdentity, topic: OwnTracksTopic, retained: Bool,
        trigger: String? = nil
    ) -> OwnTracksMessage {
        var message = OwnTracksLocation(point: point, identity: identity)
        message.topic = topic.value
        message.trigger = trigger
        return OwnTracksMessage(topic: topic.value, payload: message.jsonBody(), retained: retained)
    }
}
