import NIOSSL

/// The one TLS trust rule of every destination, HTTPS and `mqtts://` alike (NIOSSL): the
/// peer's certificate chain and name (or IP address) are verified, always, against the
/// system's roots, or only against the PEM file `caFile` when one is configured (a
/// private CA).
public enum TLSTrust {
    /// A client configuration for `caFile`; throws `.configuration` when the file cannot be
    /// used (unreadable, no certificate in it).
    public static func clientConfiguration(caFile: String?) throws(SyncError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        guard let caFile else { return tls }
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(caFile)
            guard !certificates.isEmpty else { throw SyncError.configuration("ca file '\(caFile)' holds no certificate") }
            tls.trustRoots = .certificates(certificates)
        } catch let error as SyncError {
            throw error
        } catch {
            throw .configuration("cannot use ca file '\(caFile)': \(error)")
        }
        return tls
    }
}
