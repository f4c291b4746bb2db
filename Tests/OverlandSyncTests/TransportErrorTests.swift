#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import NIOCore
@testable import OverlandSync
import Testing

/// Connection failures read as one plain line naming HOST:PORT (the refused case is also
/// driven end to end against a closed port on 127.0.0.1; time-outs are classified here,
/// since provoking them for real would mean traffic beyond loopback).
@Suite struct TransportErrorTests {
    static func classify(_ error: any Error) -> TransportError {
        HTTPClientTransport.classify(error, timeout: .seconds(60), limit: 1 << 20, server: "example.org:443")
    }

    @Test func refusedUnreachableAndTimedOut() {
        #expect(Self.classify(IOError(errnoCode: ECONNREFUSED, reason: "connect")) ==
                TransportError(.connect, "cannot connect to example.org:443: connection refused"))
        #expect(Self.classify(IOError(errnoCode: EHOSTUNREACH, reason: "connect")).message ==
                "cannot connect to example.org:443: host unreachable")
        #expect(Self.classify(HTTPClientError.connectTimeout).message == "cannot connect to example.org:443: timed out")
        #expect(Self.classify(ChannelError.connectTimeout(.seconds(10))).message == "cannot connect to example.org:443: timed out")
    }

    @Test func hostAndPortOfAURL() {
        #expect(HTTPClientTransport.hostAndPort(of: "http://127.0.0.1:8080/overland?token=x") == "127.0.0.1:8080")
        #expect(HTTPClientTransport.hostAndPort(of: "https://user:pw@example.org/api") == "example.org:443")
        #expect(HTTPClientTransport.hostAndPort(of: "http://example.org") == "example.org:80")
        #expect(HTTPClientTransport.hostAndPort(of: "https://[::1]:8443/x") == "[::1]:8443")
        #expect(HTTPClientTransport.hostAndPort(of: "https://[::1]/x") == "[::1]:443")
    }

    @Test func secretsOfTheEndpointAreHiddenInMessages() {
        let url = "https://user:pw-secret@example.org/api/webhook/hook-id-0123?api_key=k3y-s3cret#frag-secret"
        let message = "connect to \(url) failed; retried with key=k3y-s3cret, password pw-secret, id hook-id-0123"
        let hidden = SecretRedaction.hiding(url: url, token: "the-token-value", in: message + " the-token-value")
        #expect(hidden == "connect to https://user:<redacted>@example.org/api/webhook/<redacted>?api_key=<redacted>#<redacted> failed; "
            + "retried with key=<redacted>, password <redacted>, id <redacted> <redacted>")
    }
}
