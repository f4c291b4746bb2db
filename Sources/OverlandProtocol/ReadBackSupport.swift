/// Which destinations can be read back (`verify true`), from the capabilities on the
/// receivers' lines (`ReceiverProfile.readBack`, `ReceiverKind.readBack`): the one rule
/// `overland config set`, `overland destination set`, the sync, `overland destination
/// audit` and `resend` all apply. A receiver can be verified when it has an API that lists
/// the points it holds for a device and a time range (docs/receivers.md lists them with
/// their sources), and only every point is compared.
public enum ReadBackSupport {
    /// The read API of a destination of `wireProtocol` with `profile`: a profile that says
    /// it has none says why first; then the protocol's own (Traccar, a broker's feed); then
    /// the profile's. Throws why there is none.
    public static func api(protocol wireProtocol: WireProtocol, profile: ReceiverProfile) throws(ReadBackError) -> ReadBackAPI {
        if case .unreadable(let why) = profile.readBack { throw ReadBackError(why) }
        switch Receivers.kind(of: wireProtocol)?.readBack {
        case .reader(let api)?: return api
        case .unreadable(let why)?: throw ReadBackError(why)
        case .deferred?, nil: break
        }
        if let api = profile.readBack.api { return api }
        throw ReadBackError("verify needs to know which receiver reads back: set profile "
                            + ReceiverProfile.all.filter { $0.readBack.api != nil }.map(\.name).joined(separator: ", ")
                            + " first (or use protocol "
                            + Receivers.httpProtocols.filter { $0.readBack.api != nil }.map(\.wireProtocol.rawValue)
                                .joined(separator: " or ") + ")")
    }

    /// Why a destination of `wireProtocol` with `profile`, sending in `loggingMode`, cannot
    /// be read back, or nil when it can. A receiver whose address its destination's url
    /// cannot give (what a broker feeds) needs `verifyURL`.
    public static func problem(protocol wireProtocol: WireProtocol, profile: ReceiverProfile, loggingMode: LoggingMode = .all,
                               verifyURL: String? = nil) -> String? {
        let api: ReadBackAPI
        do { api = try self.api(protocol: wireProtocol, profile: profile) } catch { return error.description }
        if verifyURL == nil, let needed = api.needsVerifyURL { return needed }
        return loggingModeProblem(loggingMode)
    }

    /// Why a destination sending in `loggingMode` cannot be read back, or nil.
    public static func loggingModeProblem(_ loggingMode: LoggingMode) -> String? {
        loggingMode.sendsEveryPoint ? nil : "verify compares every point sent: it needs logging_mode all, not \(loggingMode.rawValue)"
    }
}
