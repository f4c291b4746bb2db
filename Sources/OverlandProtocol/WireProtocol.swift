/// How a destination's points travel: the protocol a receiver speaks. Each has its own
/// encoding, batch rule and acknowledgement (see the receivers in this module).
public enum WireProtocol: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The Overland protocol: `{"locations":[...]}` batches, acknowledged by `{"result":"ok"}`.
    case overland
    /// OwnTracks over HTTP: one location message per request (OwnTracks Recorder, Home
    /// Assistant's OwnTracks integration); any 2xx acknowledges.
    case owntracks
    /// Traccar's OsmAnd protocol, as Traccar Client sends it: one position per request;
    /// 200 acknowledges.
    case traccar
    /// OwnTracks messages through an MQTT broker; the PUBACK of a QoS 1 publish acknowledges.
    case mqtt

    public var description: String { rawValue }
}
