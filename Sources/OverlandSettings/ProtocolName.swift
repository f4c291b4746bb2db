/// The `protocol` setting: the protocol the default destination's receiver speaks (the
/// receivers themselves are in OverlandProtocol: `Receivers`).
public enum ProtocolName: String, SettingChoice {
    /// Overland batches (`{"locations":[...]}`), the default.
    case overland
    /// OwnTracks location messages over HTTP, one per request.
    case owntracks
    /// Traccar's OsmAnd protocol (JSON, as Traccar Client sends it), one position per request.
    case traccar
}
