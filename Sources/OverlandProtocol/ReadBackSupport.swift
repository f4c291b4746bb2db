/// Which receivers can be read back (`verify true`): the one rule `overland config set`,
/// `overland destination set` and the sync all apply. A receiver can be verified when it
/// has an API that lists the points it holds for a device and a time range
/// (docs/receivers.md lists them with their sources).
public enum ReadBackSupport {
    /// The profiles whose receiver has such an API.
    public static let readableProfiles = ["owntracks-recorder", "dawarich", "home-assistant", "compass"]

    /// Why a destination of `wireProtocol` (by name) with `profile` (by name) cannot be
    /// read back, or nil when it can. An mqtt destination is read back through what its
    /// broker feeds (the OwnTracks Recorder, or Home Assistant with discovery), whose
    /// address the broker url cannot give: it needs `verifyURL`.
    public static func problem(protocol wireProtocol: String, profile: String, verifyURL: String? = nil) -> String? {
        if profile == "wayfinder" {
            return "Wayfinder has no API that lists the points it holds, so verify cannot be on for it (see docs/receivers.md)"
        }
        if wireProtocol == "mqtt" {
            guard verifyURL == nil else { return nil }
            return "an mqtt destination is read back from what its broker feeds: set verify_url to the OwnTracks Recorder's "
                + "address (or Home Assistant's, with discovery true) first"
        }
        if wireProtocol == "traccar" || readableProfiles.contains(profile) { return nil }
        return "verify needs to know which receiver reads back: set profile "
            + readableProfiles.joined(separator: ", ") + " first (or use protocol traccar)"
    }
}
