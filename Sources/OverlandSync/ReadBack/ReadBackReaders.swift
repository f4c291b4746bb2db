import OverlandProtocol

/// The reader for a destination: the read API its receiver's line declares
/// (`ReadBackSupport.api`: its protocol's or its profile's), asking at the origin of its
/// url or at `verify_url`, with `verify_token` or else its token.
public enum ReadBackReaders {
    /// The reader for `configuration` (an mqtt destination's: `broker`, what it publishes),
    /// or why there is none (a configuration problem). `verifyURL` is the read API's base
    /// (`scheme://host[:port][/prefix]`): the reader adds its own path.
    public static func reader(for configuration: SyncConfiguration, verifyURL: String?, verifyToken: String?,
                              broker: ReadBackTarget.Broker? = nil) throws(ReadBackError) -> any ReadBackReader {
        if let problem = ReadBackSupport.problem(protocol: configuration.wireProtocol, profile: configuration.profile,
                                                 loggingMode: configuration.loggingMode, verifyURL: verifyURL) {
            throw ReadBackError(problem)
        }
        let api = try ReadBackSupport.api(protocol: configuration.wireProtocol, profile: configuration.profile)
        return try api.reader(for: ReadBackTarget(verifyURL: verifyURL, endpoint: configuration.endpoint, readToken: verifyToken,
                                                  token: configuration.token, deviceID: configuration.deviceID,
                                                  profile: configuration.profile, broker: broker))
    }
}
