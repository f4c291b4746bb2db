import TestSupport
import Foundation
import OverlandJSON
import OverlandJournal
import OverlandProtocol
@testable import OverlandSync
import Testing

/// Structure-aware server replies: statuses across the whole range, `Retry-After` in every
/// form (seconds of any length, HTTP-dates at the epoch's edges, garbage), bodies that are
/// acknowledgements or nearly so, `set` with every key and hostile values, and the token
/// echoed whole, padded, cut, split and percent-encoded in errors, place names and values.
struct ReplyGenerator {
    var random: SplitMix
    let token: String

    init(seed: UInt64, token: String) {
        random = SplitMix(state: seed)
        self.token = token
    }

    mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &random)! }

    mutating func echo() -> String {
        switch Int.random(in: 0..<7, using: &random) {
        case 0: return token
        case 1: return String(repeating: "x", count: Int.random(in: 0...200, using: &random)) + token
        case 2: return String(token.dropFirst(Int.random(in: 0...token.count - 4, using: &random)))
        case 3: return String(token.prefix(Int.random(in: 4...token.count, using: &random))) + "…"
        case 4: return token.map(String.init).joined(separator: pick(["", " ", "\u{1b}", "\u{202e}"]))
        case 5: return "\u{1b}[2J\u{1b}]0;x\u{07}" + token
        default: return pick(["ok", "", "error", "Ottawa, Ontario", String(repeating: "é", count: 300)])
        }
    }

    mutating func retryAfter() -> String? {
        pick([nil, "0", "1", "3600", "21600", "21601", "86400", "99999999999999999999999", "-1", "1.5", " 60 ", "",
              "Sun, 06 Nov 1994 08:49:37 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
              "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Mon, 32 Foo 2026 25:61:61 GMT", "soon"])
    }

    mutating func body() -> String {
        let setKeys = ["batch_size", "send_interval", "min_distance", "logging_mode", "endpoint", "token", "ca_file", "journal",
                       "main", "trip", echo()]
        func string(_ text: String) -> String {
            var writer = JSONWriter()
            writer.appendString(text)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return #"{"result":"ok"}"#
        case 1: return #"{"result":"ok","set":{\#(string(pick(setKeys))):\#(string(echo())),"main":{\#(string(pick(setKeys))):\#(string(echo()))}}}"#
        case 2: return #"{"result":"ok","geocode":{"full_name":\#(string(echo()))}}"#
        case 3: return #"{"result":"error","error":\#(string(echo()))}"#
        case 4: return pick([#"{"result":"OK"}"#, #"{"result":true}"#, #"["result","ok"]"#, #"{"result":"ok""#, "", "ok",
                             #"{"result":"ok","result":"error"}"#])
        case 5: return String(repeating: "[", count: pick([10, 100, 10_000]))
        case 6: return echo()
        default: return #"{"result":"ok","set":{\#(string(echo())):1}}"#
        }
    }

    mutating func reply() -> HTTPReply {
        let status = pick([200, 200, 201, 204, 301, 302, 400, 401, 403, 404, 413, 429, 429, 500, 502, 503, 503, 0, 99, 600, 999,
                           Int.random(in: 100...599, using: &random)])
        var headers: [SyncRequest.Header] = []
        if let value = retryAfter() { headers.append(SyncRequest.Header("Retry-After", value)) }
        if status / 100 == 3 { headers.append(SyncRequest.Header("Location", "https://evil.example/" + echo())) }
        return HTTPReply(status: status, headers: headers, body: Array(body().utf8))
    }
}

/// Answers each request with the next scripted reply.
final class ScriptedTransport: Transport, @unchecked Sendable {
    private let lock = NSLock()
    private var replies: [HTTPReply]
    init(_ replies: [HTTPReply]) { self.replies = replies }
    func send(_ request: SyncRequest, timeout: Duration) async throws -> HTTPReply {
        guard let reply = next() else { throw TransportError(.connect, "cannot connect: refused") }
        return reply
    }
    private func next() -> HTTPReply? {
        lock.withLock { replies.isEmpty ? nil : replies.removeFirst() }
    }
}

@Suite("server replies, structure-aware fuzz")
struct ReplyFuzzTests {
    static let token = "secret-token-0123456789abcdef"

    static func tokenRuns(_ text: String) -> Bool {
        let characters = Array(token)
        return (0...(characters.count - 4)).contains { text.contains(String(characters[$0..<($0 + 4)])) }
    }

    @Test("the reply parser, Retry-After and the redaction, on seeded replies")
    func replies() {
        let seed = FuzzBudget.seed(0x13_0005)
        var generator = ReplyGenerator(seed: seed, token: Self.token)
        let deadline = Date().addingTimeInterval(2 * Double(FuzzBudget.scale))
        var count = 0
        while count < 3000 * FuzzBudget.scale && Date() < deadline {
            let http = generator.reply()
            let reply = Reply(status: http.status, body: http.body, acknowledgement: .resultOK, redirectLocation: http.header("Location"))
            if reply.isDelivered {
                #expect((200..<300).contains(http.status))
                #expect((try? JSONParser.parse(http.body))?["result"]?.string == "ok")
            }
            for text in [reply.error, reply.geocodeFullName].compactMap({ $0 }) {
                #expect(PrintableText.isPrintable(text, allowLineBreaks: false))
                #expect(!Self.tokenRuns(SecretRedaction.hiding([Self.token], in: text)), "\(text)")
            }
            if let value = http.header("Retry-After"), let seconds = RetryAfter.seconds(value, now: 1_800_000_000) {
                #expect(seconds >= 0)
                let delay = SyncBackoff().delay(afterFailures: Int.random(in: 1...40, using: &generator.random), random: 0.99, retryAfter: seconds)
                #expect(delay <= SyncBackoff().longestWait)
            }
            count += 1
        }
        print("reply structured fuzz: seed \(seed), \(count) replies")
        #expect(count > 0)
    }

    @Test("seeded reply sequences through the engine: the cursor moves by what was acknowledged, state stays readable and clean")
    func engineRuns() async throws {
        let seed = FuzzBudget.seed(0x13_0006)
        var generator = ReplyGenerator(seed: seed, token: Self.token)
        var runs = 0
        let fixture = try JournalFixture(points: 120)
        let deadline = Date().addingTimeInterval(3 * Double(FuzzBudget.scale))
        while runs < 60 * FuzzBudget.scale && (runs < 20 || Date() < deadline) {
            let replies = (0..<Int.random(in: 1...4, using: &generator.random)).map { _ in generator.reply() }
            var configuration = SyncConfiguration(endpoint: "http://127.0.0.1:9/in", token: Self.token, deviceID: "van")
            configuration.sendIntervalSeconds = 0
            configuration.batchSize = 50
            let before = try fixture.journal.cursor()
            let engine = SyncEngine(journal: fixture.journal, configuration: configuration, transport: ScriptedTransport(replies),
                                    wallClock: { 1_800_000_000 }, random: { 0.5 })
            var sets: [JSONValue] = []
            let report = await engine.run(sendNow: true, onSet: { sets.append($0) })
            let after = try fixture.journal.cursor()
            #expect(after >= before && after <= 120 && after - before == UInt64(report.sentRecords), "\(report)")
            let delivered = replies.prefix(report.batches).allSatisfy {
                Reply(status: $0.status, body: $0.body, acknowledgement: .resultOK).isDelivered
            }
            #expect(delivered, "every batch counted was acknowledged")
            if let message = report.message { #expect(!Self.tokenRuns(message), "\(message)") }
            let state = try SyncState.load(journal: fixture.journal)
            if let next = state.nextAttempt { #expect(next <= 1_800_000_000 + Int64(SyncBackoff().longestWait)) }
            for text in [state.lastError, state.geocode].compactMap({ $0 }) {
                #expect(!Self.tokenRuns(text) && PrintableText.isPrintable(text, allowLineBreaks: false), "\(text)")
            }
            if after == 120 { try fixture.journal.advanceCursor(to: 0) }
            runs += 1
        }
        print("engine reply fuzz: seed \(seed), \(runs) runs")
    }

    @Test("every kept regression reply")
    func regressions() async throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Regressions/reply")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".reply") }.sorted()
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let first = text.prefix { $0 != "\n" }
            let body = Array(text.dropFirst(first.count + 1).utf8)
            let words = first.split(separator: " ", maxSplits: 1)
            let status = Int(words.first ?? "") ?? 0
            var headers: [SyncRequest.Header] = []
            if words.count == 2, let colon = words[1].firstIndex(of: ":") {
                headers.append(SyncRequest.Header(String(words[1][..<colon]), String(words[1][words[1].index(after: colon)...].dropFirst())))
            }
            let fixture = try JournalFixture(points: 3)
            var configuration = SyncConfiguration(endpoint: "http://127.0.0.1:9/in", token: Self.token, deviceID: "van")
            configuration.sendIntervalSeconds = 0
            let engine = SyncEngine(journal: fixture.journal, configuration: configuration,
                                    transport: ScriptedTransport([HTTPReply(status: status, headers: headers, body: body)]),
                                    wallClock: { 1_800_000_000 }, random: { 0.5 })
            let report = await engine.run(sendNow: true)
            if let message = report.message { #expect(!Self.tokenRuns(message), "\(file): \(message)") }
            let state = try SyncState.load(journal: fixture.journal)
            if let next = state.nextAttempt { #expect(next <= 1_800_000_000 + Int64(SyncBackoff().longestWait), "\(file)") }
        }
    }
}
