import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// libmosquitto (and through it libssl and libcrypto) is opened only when an MQTT
/// destination runs: the logger and an HTTP-only sync never load it. The loader's own
/// account (`LD_DEBUG=files`, which lists every object it maps, dlopen included) is what
/// the tests read.
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

    @Test func mqttSyncLoadsTheLibraryWhenItRuns() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-dlopen-mqtt")
        try sandbox.logEpochs(0..<20)
        let broker = try MosquittoBroker(directory: sandbox.directory.path)
        defer { _ = broker.stop() }
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", "mqtt://127.0.0.1:\(broker.port)", "--now"],
                                          environment: Self.tracing)
        #expect(result.succeeded, "\(result.stdoutText) \(result.stderrText.suffix(2000))")
        #expect(try sandbox.cursor() == 20)
        #expect(Self.loaded(result).contains { $0.hasPrefix("libmosquitto.so") }, "\(Self.loaded(result))")
    }

    /// Without the library, an MQTT destination is a configuration error named in one line;
    /// nothing is lost (the cursor stays) and an HTTP destination of the same run is sent to.
    @Test func missingLibraryIsOneLineAndTheOthersAreSent() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-dlopen-missing")
        try sandbox.logEpochs(0..<20)
        let server = try LocalServer()
        defer { server.stop() }
        try sandbox.writeSettings("""
            {"endpoint": "\(server.url)"}
            """)
        let add = try sandbox.overland.run(["destination", "add", "broker", "mqtt://127.0.0.1:\(try LocalServer.closedPort())",
                                            "--protocol", "mqtt", "--from-start", "--journal", sandbox.journal])
        #expect(add.succeeded, "\(add)")
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--now"],
                                          environment: ["OVERLAND_LIBMOSQUITTO": sandbox.directory.path + "/no-such-libmosquitto.so"])
        #expect(result.termination == .exited(78), "\(result)")
        let lines = result.stderrLines.filter { $0.contains("libmosquitto") }
        #expect(lines.count == 1, "\(result.stderrText)")
        #expect(result.stderrText.contains("cannot load") && result.stderrText.contains("apt-get install libmosquitto1"),
                "\(result.stderrText)")
        let journal = try Journal(path: sandbox.journal)
        #expect(try journal.cursor(for: #require(CursorName("broker"))) == 0)
        #expect(try journal.cursor(for: .default) == 20)
    }
}
