#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CMosquitto

/// TLS to the broker for `MQTTRelay`, with OpenSSL (the library libmosquitto uses), so that
/// the relay sees the MQTT bytes and can check each packet's size before libmosquitto reads
/// it, over `mqtts://` as over `mqtt://`. The broker's certificate chain and its name (or
/// IP address) are verified, always; TLS 1.2 at least.
///
/// The ciphertext goes through memory BIOs: the relay moves it with `recv` and `send`
/// (`MSG_NOSIGNAL`), so no write ever raises SIGPIPE and nothing here blocks.
final class MQTTTLS {
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    /// Ciphertext from the broker, for OpenSSL to read.
    private let input: OpaquePointer
    /// Ciphertext from OpenSSL, for the broker.
    private let output: OpaquePointer

    /// Where an operation stands.
    enum Progress {
        case done(Int)
        /// OpenSSL needs more bytes from the broker (or has bytes to send first).
        case wants
        /// The broker closed TLS (close_notify).
        case closed
        case failed
    }

    /// A client for `host`, trusting `caFile` or else the system's authorities.
    init(host: String, caFile: String?, systemCAPath: String) throws(MQTTError) {
        guard let method = TLS_client_method(), let made = SSL_CTX_new(method) else {
            throw .tryLater("tls: cannot set up: \(Self.lastError())")
        }
        context = made
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                let why = Self.lastError()
                SSL_CTX_free(context)
                throw .configuration("cannot use the certificate authorities in '\(caFile)': \(why)")
            }
        } else {
            _ = SSL_CTX_set_default_verify_paths(context)
            _ = SSL_CTX_load_verify_locations(context, nil, systemCAPath)
        }
        guard let session = SSL_new(context), let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_CTX_free(context)
            throw .tryLater("tls: cannot set up: \(Self.lastError())")
        }
        ssl = session
        self.input = input
        self.output = output
        SSL_set_bio(ssl, input, output)
        var address = in6_addr()
        let isAddress = inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
        if isAddress {
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            _ = SSL_set1_host(ssl, host)
            _ = host.withCString { SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0)) }
        }
        SSL_set_connect_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// OpenSSL's last error, lower-case, or a placeholder.
    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "unknown error" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(cString: text).lowercased()
    }

    /// Whether the handshake failed on the broker's certificate (untrusted, or not naming it).
    var certificateRefused: Bool { SSL_get_verify_result(ssl) != Int(X509_V_OK) }

    private func progress(_ result: Int32) -> Progress {
        if result > 0 { return .done(Int(result)) }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wants
        case SSL_ERROR_ZERO_RETURN: return .closed
        default: return .failed
        }
    }

    /// Whether OpenSSL holds plaintext or ciphertext not yet read.
    var hasPending: Bool { SSL_pending(ssl) > 0 || BIO_ctrl_pending(input) > 0 }

    /// One step of the handshake.
    func handshake() -> Progress { progress(SSL_do_handshake(ssl)) }

    /// Hands OpenSSL ciphertext received from the broker.
    func receive(_ bytes: ArraySlice<UInt8>) {
        _ = bytes.withUnsafeBytes { BIO_write(input, $0.baseAddress, Int32($0.count)) }
    }

    /// Appends the ciphertext OpenSSL has for the broker to `buffer`.
    func takeOutgoing(into buffer: inout [UInt8]) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while BIO_ctrl_pending(output) > 0 {
            let count = chunk.withUnsafeMutableBytes { BIO_read(output, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return }
            buffer += chunk[0..<Int(count)]
        }
    }

    /// Plaintext from the broker, into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Progress {
        progress(SSL_read(ssl, buffer.baseAddress, Int32(buffer.count)))
    }

    /// Plaintext for the broker (taken whole: the output BIO grows).
    func write(_ bytes: ArraySlice<UInt8>) -> Progress {
        progress(bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) })
    }
}
