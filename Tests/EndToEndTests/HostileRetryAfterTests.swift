import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Retry-After from a hostile or busy server")
struct HostileRetryAfterTests {
    // MARK: - 10. Retry-After

    /// Both runs read one injected instant (`OVERLAND_TEST_NOW`), the HTTP-date is built
    /// from it: the delay is exact, however long a run takes.
    @Test("Retry-After on a 429 or 503 is honoured (seconds or an HTTP-date), within a cap of 6 hours",
          arguments: [(429, "3600", 3600), (503, "date+7200", 7200), (429, "999999", 21600), (503, "soon", 0), (429, "date-600", 0)])
    func retryAfter(status: Int, header: String, wait: Int) throws {
        let (sandbox, sync) = try RoundTwo.sandbox()
        let now = Int(Date().timeIntervalSince1970)
        let clock: [String: String?] = ["OVERLAND_TEST_NOW": String(now)]
        var value = header
        if header.hasPrefix("date") {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            value = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(now + Int(header.dropFirst(4))!)))
        }
        let header = value
        let server = try LocalServer { _, _ in LocalServer.text(status, "busy", headers: [("Retry-After", header)]) }
        defer { server.stop() }
        let result = try sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"], environment: clock)
        result.expectExit(75)
        let state = try RoundTwo.syncState(sandbox)
        let next = try #require((state["next_attempt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }, "\(state)")
        let delay = Int(next.timeIntervalSince1970) - now
        if wait > 0 {
            #expect(delay == wait, "next attempt in \(delay) s, asked \(value)")
        } else {
            #expect((48...72).contains(delay), "the own backoff (60 s ± 20 %): \(delay) s")
        }
        // The next run, at the same instant, keeps to it (it is not taken for a clock that went back).
        let waiting = try sync.run(["--journal", sandbox.journal, "--url", server.url, "-v"], environment: clock)
        #expect(waiting.exitStatus == 0 && waiting.stderrText.contains("backing off"), "\(waiting)")
        #expect(server.requests.count == 1)
    }
}
