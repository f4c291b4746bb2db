import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One MQTT stack and one TLS stack (issue 34): no run loads libmosquitto or OpenSSL
/// (libssl, libcrypto), an mqtt or mqtts sync included; MQTT is SwiftNIO and its TLS is
/// NIOSSL's BoringSSL, linked in. The loader's own account (`LD_DEBUG=files`, which lists
/// every object it maps, dlopen included) is what the tests read.
@Suite(.serialized) struct LibraryLoadingTests {
    static let mqttLibraries = ["libmosquitto", "libssl", "libcrypto"]

    /// The shared objects the loader mapped, by file name, from `LD_DEBUG=files` output.
    static func loaded(_ result: ToolResult) -> [String] {
        result.stderrLines.compactMap { line in
            guard let range = line.range(of: "file=") else { return nil }
            let name = line[range.upperBound...].prefix { $0 != " " && $0 != "\t" && $0 != ";" }
            return String(name)
        }
    }

    static let tracing: [String: String?] = ["LD_DEBUG": "files"]

    /// `result` succeeded, and the loader mapped none of the MQTT libraries (it did map the
    /// C library: the instrument works).
    static func expectNoMQTTLibrary(_ result: ToolResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.succeeded, "\(result.stdoutText) \(result.stderrText.suffix(2000))", sourceLocation: sourceLocation)
        let loaded = loaded(result)
        #expect(loaded.contains { $0.hasPrefix("libc.so") }, "\(loaded)", sourceLocation: sourceLocation)
        #expect(!loaded.contains { name in mqttLibraries.contains { name.contains($0) } }, "\(loaded)", sourceLocation: sourceLocation)
    }

    @Test func loggerLoadsNoMQTTLibrary() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-dlopen-log")
        let sample = PackageSupport.repository + "/samples/quectel-l76k.nmea"
        let result = try sandbox.log.run(["--journal", sandbox.journal, sample], environment: Self.tracing)
        Self.expectNoMQTTLibrary(result)
    }

    @Test func httpSyncLoadsNoMQTTLibrary() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-dlopen-http")
        try sandbox.logEpochs(0..<20)
        let server = try LocalServer()
        defer { server.stop() }
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"], environment: Self.tracing)
        Self.expectNoMQTTLibrary(result)
        #expect(try sandbox.cursor() == 20)
    }

    @Test func mqttSyncLoadsNoMQTTLibrary() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-dlopen-mqtt")
        try sandbox.logEpochs(0..<20)
        let broker = try MosquittoBroker(directory: sandbox.directory.path)
        defer { _ = broker.stop() }
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", "mqtt://127.0.0.1:\(broker.port)", "--now"],
                                          environment: Self.tracing)
        Self.expectNoMQTTLibrary(result)
        #expect(try sandbox.cursor() == 20)
    }

    @Test func mqttsSyncLoadsNoTLSLibrary() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-dlopen-mqtts")
        try sandbox.logEpochs(0..<20)
        let ca = try PrivateCA(directory: sandbox.directory.path)
        let broker = try MosquittoBroker(directory: sandbox.directory.path, tls: (ca.certificate, ca.key))
        defer { _ = broker.stop() }
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", "mqtts://127.0.0.1:\(broker.port)",
                                           "--ca-file", ca.caFile, "--now"], environment: Self.tracing)
        Self.expectNoMQTTLibrary(result)
        #expect(try sandbox.cursor() == 20)
    }
}
