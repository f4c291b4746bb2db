import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The token never shows: not in any command's output or error, not in any file the tools
/// write (the settings file, which holds it, aside), not with --dry-run, -v or --help, not
/// when a server echoes it back in an error, a redirect, a place name or a `set`. Every
/// file the tools create is 0600 and every directory 0700, whatever the umask.
@Suite struct SecurityTokenTests {
    static func randomHex(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in String(UInt8.random(in: 0...15, using: &generator), radix: 16) }.joined()
    }

    /// Everything a command printed, by label.
    final class Outputs: @unchecked Sendable {
        var texts: [(label: String, text: String)] = []
        func add(_ label: String, _ result: ToolResult) {
            texts.append((label + " (stdout)", result.stdoutText))
            texts.append((label + " (stderr)", result.stderrText))
        }
    }

    /// The ways a secret may show: whole, its first 12 characters, percent-encoded, base64.
    static func forms(of token: String) -> [String] {
        [token, String(token.prefix(12)), Data(token.utf8).base64EncodedString(), Data(("u:" + token).utf8).base64EncodedString()]
    }

    @Test func tokenNeverShows() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-security")
        let fileToken = "filetok" + Self.randomHex(24)
        let envToken = "envtok" + Self.randomHex(24)
        try sandbox.logEpochs(0..<400)
        let outputs = Outputs()

        // A server that echoes whatever credentials it gets, in every way it can.
        let server = try LocalServer { index, request in
            let auth = request.header("Authorization") ?? "none"
            let echo = "\(auth) \(request.uri)"
            switch index % 8 {
            case 0: return LocalServer.text(500, "{\"error\":\"bad credentials: \(echo)\"}")
            case 1: return LocalServer.text(401, "{\"error\":\"\(echo)\"}")
            case 2: return .reply(status: 302, body: [], headers: [("Location", "http://127.0.0.2/in?\(echo.replacingOccurrences(of: " ", with: "+"))")])
            case 3: return LocalServer.text(200, "{\"result\":\"error\",\"error\":\"\(echo)\"}")
            case 4: return LocalServer.text(200, "{\"result\":\"ok\",\"geocode\":{\"full_name\":\"\(echo)\"},\"set\":{\"send_interval\":\"\(auth)\",\"main\":{\"min_time\":[\"\(auth)\"]}}}")
            case 5: return LocalServer.text(500, "{\"error\":\"" + String(repeating: "x", count: 150 + (index * 7) % 50) + echo + "\"}")
            case 6: return LocalServer.text(403, "<html>\(echo)</html>")
            default: return LocalServer.text(200, "{\"result\":\"ok\"}")
            }
        }
        let overland = { (arguments: [String], environment: [String: String?]) throws -> ToolResult in
            let result = try sandbox.overland.run(arguments, environment: environment)
            outputs.add("overland " + arguments.joined(separator: " "), result)
            return result
        }
        #expect(try overland(["config", "set", "endpoint", server.url], [:]).succeeded)
        #expect(try overland(["config", "set", "token", fileToken], [:]).succeeded)
        #expect(try overland(["config", "set", "batch_size", "50"], [:]).succeeded)

        let withEnv: [String: String?] = ["OVERLAND_TOKEN": envToken]
        var runs = 0
        for environment in [withEnv, [:]] {
            for _ in 0..<8 {
                for extra in [["-v"], ["--dry-run"], ["-v", "--url", server.url + "?key=" + (environment.isEmpty ? fileToken : envToken)]] {
                    let result = try sandbox.sync.run(["--journal", sandbox.journal, "--now"] + extra, environment: environment)
                    outputs.add("overland-sync \(extra)", result)
                    #expect(result.signal == nil)
                    runs += 1
                }
            }
            // Something to send, to a port where nothing listens.
            try sandbox.logEpochs((2000 + runs)..<(2060 + runs))
            let refused = try sandbox.sync.run(["--journal", sandbox.journal, "--now", "-v", "--url",
                                                "http://127.0.0.1:\(try LocalServer.closedPort())/in?token=\(fileToken)"],
                                               environment: environment)
            outputs.add("overland-sync, connection refused", refused)
            #expect(refused.exitStatus == 75)
            for arguments in [["status"], ["status", "--json"], ["config", "list"], ["config", "list", "--json"], ["config", "get", "endpoint"],
                              ["config", "keys"], ["config", "path"], ["journal", "stats", "--journal", sandbox.journal],
                              ["journal", "verify", "--journal", sandbox.journal], ["--help"], ["config", "--help"], ["help", "status"]] {
                _ = try overland(arguments + (arguments.contains("--journal") || arguments.contains("--help") || arguments[0] != "status" ? [] : ["--journal", sandbox.journal]),
                                 environment)
            }
            for (tool, arguments) in [(sandbox.sync, ["--help"]), (sandbox.log, ["--help"]),
                                      (sandbox.log, ["--journal", sandbox.journal, "--stats", try sandbox.file("more-\(runs).nmea", SyntheticDrive.text(1000 + runs..<1001 + runs))])] {
                let result = try tool.run(arguments, environment: environment)
                outputs.add((tool.executable as NSString).lastPathComponent + " \(arguments.first ?? "")", result)
            }
        }
        #expect(server.requests.count > 10)

        // The server got the token, in the header only: the environment wins over the file.
        let headers = Set(server.requests.compactMap { $0.header("Authorization") })
        #expect(headers == ["Bearer " + envToken, "Bearer " + fileToken], "\(headers.count) distinct Authorization headers")

        var leaks: [String] = []
        for (label, text) in outputs.texts {
            for token in [fileToken, envToken] {
                for form in Self.forms(of: token) {
                    guard let range = text.range(of: form) else { continue }
                    let start = text.index(range.lowerBound, offsetBy: -80, limitedBy: text.startIndex) ?? text.startIndex
                    leaks.append(label + ": …" + String(text[start..<range.upperBound]))
                    break
                }
            }
        }
        // Files: the journal, its state, this machine's registry, the data and config
        // directories; only the settings file holds the token (the file's own, never the
        // environment's).
        for file in ReliabilitySandbox.files(under: sandbox.directory.path) {
            let path = sandbox.directory.appending(file)
            guard let bytes = FileManager.default.contents(atPath: path) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            if path == sandbox.settingsPath {
                #expect(text.contains(fileToken) && !text.contains(envToken))
                continue
            }
            for token in [fileToken, envToken] where Self.forms(of: token).contains(where: { text.contains($0) }) {
                leaks.append(file)
            }
        }
        #expect(leaks.isEmpty, "the token shows in: \(Set(leaks).sorted())")
        Figures.record("security: the token never shows", "command runs and files checked (leaks in the lost column)",
                       outputs.texts.count / 2 + ReliabilitySandbox.files(under: sandbox.directory.path).count, lost: leaks.count)
        Figures.record("security: the token never shows", "overland-sync runs against 8 echoing server behaviours", runs)
    }

    /// Every file 0600 and directory 0700 that the tools create: journal, segments, cursor,
    /// state, damaged copies, settings, the registry of journals; even under umask 000.
    /// A token the settings refuse (not a text, a control character inside) is named, never
    /// quoted: the message says which key and what is allowed, with "••••" for the value.
    @Test(arguments: ["12345678901234567890", "\"sekrit\\u0001tokenvalue\"", "[\"sekrittokenvalue\"]"])
    func refusedTokenIsNeverQuoted(token: String) throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-security-refused")
        let secrets = ["12345678901234567890", "sekrit", "tokenvalue"]
        try sandbox.writeSettings(#"{"token": \#(token)}"#)
        let list = try sandbox.overland.run(["config", "list"])
        list.expectExit(78)
        #expect(list.stderrText.contains("\"token\""), "\(list.stderrText)")
        #expect(list.stderrText.contains("••••"), "\(list.stderrText)")
        let sync = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        sync.expectExit(78)
        let log = try sandbox.log.run(["--journal", sandbox.journal, PackageSupport.repository + "/samples/quectel-l76k.nmea"])
        #expect(log.succeeded, "\(log)")
        try sandbox.writeSettings("{}")
        let destinationsFile = sandbox.directory.appending("config/overland/destinations.json")
        try Data(#"{"version": 1, "destinations": {"home": {"url": "http://127.0.0.1:9/in", "token": \#(token)}}}"#.utf8)
            .write(to: URL(fileURLWithPath: destinationsFile))
        chmod(destinationsFile, 0o600)
        let destinations = try sandbox.overland.run(["destination", "list"])
        destinations.expectExit(78)
        for result in [list, sync, log, destinations] {
            for secret in secrets {
                #expect(!result.stdoutText.contains(secret) && !result.stderrText.contains(secret), "\(secret) shown: \(result)")
            }
        }
    }

    @Test(arguments: ["022", "000"])
    func privateModes(umask mask: String) throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-modes")
        let server = try LocalServer()
        func run(_ tool: ToolRunner, _ arguments: [String], environment: [String: String?] = [:]) throws -> ToolResult {
            var shell = ToolRunner(executable: "/bin/sh")
            shell.environment = tool.environment
            return try shell.run(["-c", "umask \(mask); exec \"$0\" \"$@\"", tool.executable] + arguments, environment: environment)
        }
        #expect(try run(sandbox.overland, ["config", "set", "token", "modes-token"]).succeeded)
        #expect(try run(sandbox.overland, ["config", "set", "batch_size", "50"]).succeeded)
        let input = try sandbox.file("drive.nmea", SyntheticDrive.text(0..<120))
        #expect(try run(sandbox.log, ["--journal", sandbox.journal, input]).succeeded)
        // A torn tail, cut and kept in damaged/ by the next run.
        let segments = ReliabilitySandbox.files(under: sandbox.journal + "/segments")
        let newest = try #require(segments.last)
        let handle = try #require(FileHandle(forWritingAtPath: sandbox.journal + "/segments/" + newest))
        handle.seekToEndOfFile()
        handle.write(Data([0x1F, 0x8B, 0x08, 0x06, 1, 2, 3, 4, 5]))
        handle.closeFile()
        #expect(try run(sandbox.log, ["--journal", sandbox.journal, try sandbox.file("more.nmea", SyntheticDrive.text(120..<130))]).succeeded)
        #expect(try run(sandbox.sync, ["--journal", sandbox.journal, "--url", server.url, "--now"]).succeeded)
        #expect(try run(sandbox.overland, ["trip", "start", "--journal", sandbox.journal]).succeeded)
        #expect(try run(sandbox.overland, ["journal", "seal", "--journal", sandbox.journal]).succeeded)
        #expect(!ReliabilitySandbox.files(under: sandbox.journal + "/damaged").isEmpty, "no damaged/ copy to check")
        #expect(FileManager.default.fileExists(atPath: sandbox.journal + "/cursor.json"))

        Torture.checkPermissions(sandbox.journal)
        var checked = 0
        for root in [sandbox.directory.appending("config/overland"), sandbox.directory.appending("state/overland")] {
            var info = stat()
            guard stat(root, &info) == 0 else {
                Issue.record("\(root) was not created")
                continue
            }
            #expect(info.st_mode & 0o777 == 0o700, "\(root): \(String(info.st_mode & 0o777, radix: 8))")
            for file in ReliabilitySandbox.files(under: root) {
                #expect(stat(root + "/" + file, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(root)/\(file): \(String(info.st_mode & 0o777, radix: 8))")
                checked += 1
            }
        }
        checked += ReliabilitySandbox.files(under: sandbox.journal).count
        Figures.record("security: files 0600, directories 0700", "files checked under umask \(mask)", checked)
    }
}
