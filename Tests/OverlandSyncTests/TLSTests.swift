import TestSupport
import Foundation
import OverlandSync
import Testing

/// A private CA and a server certificate for 127.0.0.1, made with the openssl command.
struct TestCertificates {
    let directory: String
    var caFile: String { directory + "/ca.pem" }
    var certificate: String { directory + "/server.pem" }
    var key: String { directory + "/server.key" }

    static let opensslPath = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    init(subjectAltName: String = "IP:127.0.0.1", sourceLocation: SourceLocation = #_sourceLocation) throws {
        _ = try #require(Self.opensslPath, "openssl is not installed (Debian package openssl): run `bash scripts/install-dependencies`",
                         sourceLocation: sourceLocation)
        directory = NSTemporaryDirectory() + "overland-sync-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try """
        basicConstraints=CA:FALSE
        extendedKeyUsage=serverAuth
        subjectAltName=\(subjectAltName)
        """.write(toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(["req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Overland Test CA",
                                                  "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"], in: directory)
        try Self.openssl(["req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"], in: directory)
        try Self.openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                          "-out", "server.pem", "-days", "2", "-extfile", "server.ext"], in: directory)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func openssl(_ arguments: [String], in directory: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opensslPath!)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}

@Suite struct TLSTests {
    @Test func privateCATrustedOnlyWithCAFile() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let server = try LocalServer(tls: (certificates.certificate, certificates.key))
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        var configuration = SyncConfiguration.test(server)
        configuration.endpoint = "https://127.0.0.1:\(server.port)/overland"

        // The system roots do not know the private CA: verification fails, nothing is lost.
        let refused = try await sync(fixture, configuration)
        #expect(refused.outcome == .retryLater)
        #expect(refused.message?.hasPrefix("tls with 127.0.0.1:\(server.port) failed: its certificate is not trusted") == true,
                "\(refused.message ?? "")")
        #expect(fixture.cursor == 0)
        #expect(server.requests.isEmpty)

        configuration.caFile = certificates.caFile
        let delivered = try await sync(fixture, configuration, sendNow: true)
        #expect(delivered.outcome == .delivered)
        #expect(fixture.cursor == 2)
        #expect(server.requests.first?.header("Authorization") == "Bearer secret-token")
    }

    @Test func certificateForAnotherNameIsRefused() async throws {
        let certificates = try TestCertificates(subjectAltName: "DNS:example.com")
        defer { certificates.remove() }
        let server = try LocalServer(tls: (certificates.certificate, certificates.key))
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        var configuration = SyncConfiguration.test(server)
        configuration.endpoint = "https://127.0.0.1:\(server.port)/overland"
        configuration.caFile = certificates.caFile
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .retryLater)
        #expect(fixture.cursor == 0)
        #expect(server.requests.isEmpty)
    }
}
