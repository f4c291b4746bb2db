import TestSupport
import Foundation
import Testing

/// Issue 21: `status`, `status --json`, `config list` and `--dry-run` printed `?token=`,
/// `?api_key=` and fragments; a Home Assistant webhook id (a secret in the path) appeared in
/// `destination list`, `status` and every error. One rule (`RedactedURL`) for every URL
/// shown: through the real commands, no 4 characters in a row of any secret appear.
@Suite("secrets in URLs are never shown")
struct SecurityURLSecretTests {
    static let hook = "Zq8Xw3Kv9Jm2Tp6R"
    static let apiKey = "Hn4Bx7Lq2Wz9Cf5D"
    static let fragment = "Yk3Vr8Gm1Pq6Xs2N"
    static let password = "Uc6Ge1Rt8Ab3Nh0S"
    static let token = "Fj5Tw9Qb3Mx7Kd1L"

    /// Every run of 4 characters of a secret found in `text`.
    static func leaks(in text: String) -> [String] {
        [hook, apiKey, fragment, password, token].flatMap { secret in
            let characters = Array(secret)
            return (0...(characters.count - 4)).map { String(characters[$0..<($0 + 4)]) }.filter { text.contains($0) }
        }
    }

    @Test func noCommandShowsASecretOfAURL() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-url-secrets")
        try sandbox.logEpochs(0..<5)
        // A receiver that fails every request and echoes what it was sent (its error page
        // quotes the request line, as many do).
        let server = try LocalServer { _, request in LocalServer.text(500, "no handler for POST \(request.uri)") }
        defer { server.stop() }
        let endpoint = server.baseURL.replacingOccurrences(of: "http://", with: "http://van:\(Self.password)@")
            + "/api/webhook/\(Self.hook)?api_key=\(Self.apiKey)#\(Self.fragment)"
        try sandbox.writeSettings(#"{"endpoint": "\#(endpoint)", "token": "\#(Self.token)"}"#)
        let homeAssistant = server.baseURL + "/api/webhook/\(Self.hook)"
        let added = try sandbox.overland.run(["destination", "add", "ha", homeAssistant, "--protocol", "owntracks",
                                              "--journal", sandbox.journal, "--from-start"])
        #expect(added.succeeded, "\(added)")
        let closed = "http://127.0.0.1:\(try LocalServer.closedPort())/api/webhook/\(Self.hook)?api_key=\(Self.apiKey)"

        var outputs: [(String, ToolResult)] = [("destination add", added)]
        func overland(_ arguments: [String]) throws {
            outputs.append((arguments.joined(separator: " "), try sandbox.overland.run(arguments)))
        }
        func sync(_ arguments: [String]) throws {
            outputs.append(("overland-sync " + arguments.joined(separator: " "), try sandbox.sync.run(["--journal", sandbox.journal] + arguments)))
        }
        try overland(["config", "list"])
        try overland(["config", "list", "--json"])
        try overland(["destination", "list"])
        try overland(["destination", "list", "--json"])
        try overland(["destination", "show", "ha"])
        try overland(["status", "--journal", sandbox.journal])
        try overland(["status", "--json", "--journal", sandbox.journal])
        try sync(["--dry-run"])
        try sync(["--now", "--verbose"])
        try sync(["--now", "--verbose", "--url", closed])
        try sync(["--now", "--url", "ftp://x/api/webhook/\(Self.hook)?api_key=\(Self.apiKey)"])
        // After the failures, the saved errors.
        try overland(["status", "--journal", sandbox.journal])
        try overland(["status", "--json", "--journal", sandbox.journal])
        try overland(["config", "set", "endpoint", "gopher://h/?api_key=\(Self.apiKey)"])

        for (name, result) in outputs {
            let text = result.stdoutText + result.stderrText
            #expect(Self.leaks(in: text).isEmpty, "\(name) shows \(Self.leaks(in: text)): \(text)")
        }
        func output(_ name: String) throws -> String {
            let result = try #require(outputs.first { $0.0 == name }?.1, "\(name)")
            return result.stdoutText + result.stderrText
        }
        // What is shown instead: the server recognisable, the secrets redacted.
        let shown = "/api/webhook/<redacted>?api_key=<redacted>#<redacted>"
        #expect(try output("config list").contains(shown))
        #expect(try output("status --journal \(sandbox.journal)").contains("van:<redacted>@"))
        #expect(try output("status --journal \(sandbox.journal)").contains(shown))
        #expect(try output("destination list").contains(server.baseURL + "/api/webhook/<redacted>"))
        #expect(try output("overland-sync --dry-run").contains("/api/webhook/<redacted>?api_key=<redacted>"))
        #expect(try output("overland-sync --now --verbose").contains("500"))
        // The saved state holds no secret either.
        for file in try FileManager.default.contentsOfDirectory(atPath: sandbox.journal + "/state") {
            let text = try String(contentsOfFile: sandbox.journal + "/state/" + file, encoding: .utf8)
            #expect(Self.leaks(in: text).isEmpty, "state/\(file): \(text)")
        }
    }
}
