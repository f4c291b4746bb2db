import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("endpoint ports out of range")
struct HostilePortTests {
    // MARK: - 3. Ports

    @Test("an endpoint port above 65535: setup and config set refuse it (64); a stored or given one is exit 78, never a crash")
    func portOutOfRange() throws {
        let (sandbox, sync) = try RoundTwo.sandbox()
        let setup = try sandbox.overland.run(["setup", "overland://setup?url=http%3A%2F%2F127.0.0.1%3A70000%2Fin"])
        #expect(setup.exitStatus == 64 && setup.stderrLines.count == 1 && setup.stderrText.contains("65535"), "\(setup)")
        let set = try sandbox.overland.run(["config", "set", "endpoint", "http://127.0.0.1:70000/in"])
        #expect(set.exitStatus == 64 && set.stderrLines.count == 1 && set.stderrText.contains("65535"), "\(set)")
        for url in ["http://127.0.0.1:70000/in", "http://127.0.0.1:99999999999999999999999/", "https://[::1]:65536/", "http://h:0/"] {
            let given = try sync.run(["--journal", sandbox.journal, "--url", url, "--now"])
            #expect(given.exitStatus == 78 && given.stderrLines.count == 1, "\(url): \(given)")
            let dry = try sync.run(["--journal", sandbox.journal, "--url", url, "--dry-run"])
            #expect(dry.exitStatus == 78 && dry.stderrLines.count == 1, "\(url): \(dry)")
            let environment = try sync.run(["--journal", sandbox.journal, "--now"], environment: ["OVERLAND_URL": url])
            #expect(environment.exitStatus == 78 && environment.stderrLines.count == 1, "\(url): \(environment)")
        }
        try sandbox.writeSettings(#"{"endpoint": "http://127.0.0.1:70000/in"}"#)
        let stored = try sync.run(["--journal", sandbox.journal, "--now"])
        #expect(stored.exitStatus == 78 && stored.stderrLines.count == 1 && stored.stderrText.contains("65535"), "\(stored)")
    }
}
