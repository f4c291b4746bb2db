/// Which receivers can be read back (`verify true`): the one rule `overland config set`,
/// `overland destination set`, the sync and `overland destination audit` all apply. A
/// receiver can be verified when it has an API that lists the points it holds for a
/// device and a time range (docs/receivers.md lists them with their sources), and only
/// every point is compared.
public enum ReadBackSupport {
    /// The profiles whose receiver has such an API.
    public static let readableProfiles: [ReceiverProfile] = [.owntracksRecorder, .dawarich, .homeAssistant, .compass]

    /// Why a destination of `wireProtocol` with `profile`, sending in `loggingMode`, cannot
    /// be read back, or nil when it can. An mqtt destination is read back through what its
    /// broker feeds (the OwnTracks Recorder, or Home Assistant with discovery), whose
    /// address the broker url cannot give: it needs `verifyURL`.
    public static func problem(protocol wireProtocol: WireProtocol, profile: ReceiverProfile, loggingMode: LoggingMode = .all,
                               verifyURL: String? = nil) -> String? {
        if let problem = receiverProblem(wireProtocol, profile: profile, verifyURL: verifyURL) { return problem }
        return loggingModeProblem(loggingMode)
    }

    /// Why a destination sending in `loggingMode` cannot be read back, or nil.
    public static func loggingModeProblem(_ loggingMode: LoggingMode) -> String? {
        loggingMode.sendsEveryPoint ? nil : "verify compares every point sent: it needs logging_mode all, not \(loggingMode.rawValue)"
    }

    private static func receiverProblem(_ wireProtocol: WireProtocol, profile: ReceiverProfile, verifyURL: String?) -> String? {
        if profile == .wayfinder {
            return "Wayfinder has no API that lists the points it holds, so verify cannot be on for it (see docs/receivers.md)"
        }
        if wireProtocol == .mqtt {
            guard verifyURL == nil else { return nil }
            return "an mqtt destination is read back from what its broker feeds: set verify_url to the OwnTracks Recorder's "
                + "address (or Home Assistant's, with discovery true) first"
        }
        if wireProtocol == .traccar || readableProfiles.contains(profile) { return nil }
        return "verify needs to know which receiver reads back: set profile "
            + readableProfiles.map(\.name).joined(separator: ", ") + " first (or use protocol traccar)"
    }
}
