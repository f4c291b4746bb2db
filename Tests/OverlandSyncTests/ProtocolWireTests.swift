import OverlandJSON
import OverlandProtocol
@testable import OverlandSync
import Testing

@Suite struct RequestBodyWriterTests {
    @Test func locationsCurrentAndTrip() {
        var writer = RequestBodyWriter()
        writer.finish()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"locations":[]}"#)
        writer.reset()
        writer.appendLocation(Array(#"{"a":1}"#.utf8))
        writer.appendLocation(Array(#"{"b":2}"#.utf8)[...])
        writer.finish(current: Array(#"{"c":3}"#.utf8)[...], trip: Array(#"{"mode":"car"}"#.utf8))
        #expect(writer.locationCount == 2)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"locations":[{"a":1},{"b":2}],"current":{"c":3},"trip":{"mode":"car"}}"#)
    }
}

@Suite struct ReplyTests {
    static func reply(_ status: Int, _ body: String, _ acknowledgement: Reply.Acknowledgement = .resultOK) -> Reply {
        Reply(status: status, body: Array(body.utf8), acknowledgement: acknowledgement)
    }

    @Test func acknowledgements() {
        #expect(Self.reply(200, #"{"result":"ok"}"#).outcome == .delivered)
        #expect(Self.reply(201, #" {"result":"ok"} "#).outcome == .delivered)
        #expect(Self.reply(204, "", .any2xx).outcome == .delivered)
        #expect(Self.reply(200, "[]", .any2xx).outcome == .delivered)
        #expect(Self.reply(500, #"{"result":"ok"}"#, .any2xx).outcome == .retryable("server answered 500 internal server error"))
    }

    @Test func notAcknowledged() {
        #expect(Self.reply(200, #"{"result":"error","error":"token expired"}"#).outcome == .notAcknowledged("server reported an error: token expired"))
        #expect(Self.reply(200, #"{"result":"queued"}"#).outcome == .notAcknowledged("reply result is 'queued', not 'ok'"))
        #expect(Self.reply(200, #"{}"#).outcome == .notAcknowledged(#"reply has no "result":"ok""#))
        guard case .notAcknowledged(let message) = Self.reply(200, "<html>").outcome else {
            Issue.record("html reply acknowledged")
            return
        }
        #expect(message.hasPrefix("reply is not json (unexpected byte 0x3c at offset 0)"))
    }

    @Test func errorKeptAndCleaned() {
        let reply = Self.reply(200, #"{"error":{"code":7,"text":"no"}}"#)
        #expect(reply.error == #"{"code":7,"text":"no"}"#)
        let long = Self.reply(500, #"{"error":""# + String(repeating: "x", count: 500) + "\u{202E}\"}")
        #expect(long.error?.count == Reply.maximumTextLength + 1)
        #expect(long.error?.hasSuffix("…") == true)
        #expect(Reply.cleaned("a\u{1B}[2Jb\u{202E}c\u{7F}") == "a?[2Jb?c?")
    }

    @Test func refusedAndRetryable() {
        #expect(Self.reply(401, "").outcome == .refused(status: 401, reason: "server refused the credentials (401 unauthorized)"))
        #expect(Self.reply(403, #"{"error":"banned"}"#).outcome == .refused(status: 403, reason: "server refused the credentials (403 forbidden): banned"))
        #expect(Self.reply(404, "").outcome == .wrongEndpoint(status: 404, reason: "server answered 404 not found"))
        #expect(Self.reply(405, "").outcome == .wrongEndpoint(status: 405, reason: "server answered 405 method not allowed"))
        #expect(Self.reply(410, #"{"error":"removed"}"#).outcome == .wrongEndpoint(status: 410, reason: "server answered 410 gone: removed"))
        #expect(Self.reply(418, "").outcome == .retryable("server answered 418"))
        let redirect = Reply(status: 301, body: [], redirectLocation: "https://example.com/new")
        #expect(redirect.outcome == .wrongEndpoint(
            status: 301, reason: "server redirected to 'https://example.com/new' (301), and redirects are not followed (set the endpoint to the final url)"))
    }

    @Test func geocodeAndSetOnlyWhenDelivered() {
        let ok = Self.reply(200, #"{"result":"ok","geocode":{"full_name":"Paris"},"set":{"send_interval":"1m"}}"#)
        #expect(ok.geocodeFullName == "Paris")
        #expect(ok.set?["send_interval"]?.string == "1m")
        let failed = Self.reply(500, #"{"result":"ok","set":{"send_interval":"1m"}}"#)
        #expect(failed.set == nil)
    }

    @Test func hostileBodiesAreRefusedCleanly() {
        let deep = String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        guard case .notAcknowledged(let message) = Self.reply(200, deep).outcome else {
            Issue.record("deep reply acknowledged")
            return
        }
        #expect(message.contains("nesting deeper than 16"))
        let huge = #"{"result":"ok","pad":""# + String(repeating: "x", count: 2 << 20) + #""}"#
        #expect(Self.reply(200, huge).outcome != .delivered)
    }
}

@Suite struct URLTemplateTests {
    static let point = LocationFeature(
        longitude: -77.696315, latitude: 45.490975, timestamp: 1_443_711_600, altitude: -12, speed: 4.257,
        horizontalAccuracy: 5, batteryState: .charging, batteryLevel: 0.805)

    @Test func expandsEveryPlaceholder() {
        let template = URLTemplate("https://example.com/input?ts=%TS&lat=%LAT&lon=%LON&acc=%ACC&spd=%SPD&bat=%BAT&alt=%ALT")
        #expect(template.hasPlaceholders)
        #expect(template.expanded(with: Self.point) == "https://example.com/input?ts=2015-10-01T15%3A00%3A00Z&lat=45.490975&lon=-77.696315&acc=5&spd=4.26&bat=0.81&alt=-12")
    }

    @Test func unknownsAndNoPoint() {
        var point = Self.point
        point.speed = -1
        point.horizontalAccuracy = -1
        #expect(URLTemplate("x?s=%SPD&a=%ACC").expanded(with: point) == "x?s=-1&a=-1")
        #expect(URLTemplate("x?s=%SPD&t=%TS").expanded(with: nil) == "x?s=&t=")
    }

    @Test func leavesOtherPercentsAlone() {
        let template = URLTemplate("https://e.com/a%2Fb?x=%41%&y=%T")
        #expect(!template.hasPlaceholders)
        #expect(template.expanded(with: Self.point) == "https://e.com/a%2Fb?x=%41%&y=%T")
        #expect(URLTemplate("%LAT%LON%").expanded(with: Self.point) == "45.490975-77.696315%")
    }

    @Test func percentEncodingIsRFC3986() {
        #expect(URLTemplate.percentEncoded("a b/c?d=e&f:g~h_i.j-k") == "a%20b%2Fc%3Fd%3De%26f%3Ag~h_i.j-k")
        #expect(URLTemplate.percentEncoded("é") == "%C3%A9")
    }
}

@Suite struct OwnTracksTests {
    @Test func basicAuthentication() {
        #expect(OwnTracksCredentials(token: "Aladdin:open sesame").authorizationHeader == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        let userOnly = OwnTracksCredentials(token: "alice")
        #expect(userOnly.user == "alice")
        #expect(userOnly.password == "")
        #expect(userOnly.authorizationHeader == "Basic YWxpY2U6")
        #expect(OwnTracksCredentials(token: "ab:c").authorizationHeader == "Basic YWI6Yw==")
        #expect(OwnTracksCredentials(token: "é:ü").authorizationHeader == "Basic w6k6w7w=")
    }

    @Test func identity() {
        let full = OwnTracksIdentity(deviceID: "alice/phone")
        #expect(full.user == "alice")
        #expect(full.device == "phone")
        #expect(full.topic == "owntracks/alice/phone")
        #expect(full.trackerID == "ne")
        let bare = OwnTracksIdentity(deviceID: "x", fallbackUser: "bob")
        #expect(bare.user == "bob")
        #expect(bare.device == "x")
        #expect(bare.trackerID == "x")
        #expect(bare.topic == "owntracks/x")
        let empty = OwnTracksIdentity(deviceID: "")
        #expect(empty.user == nil && empty.device == nil && empty.trackerID == nil)
    }

    @Test func locationMessage() {
        let point = LocationFeature(
            longitude: -77.696315, latitude: 45.490975, timestamp: 1_443_711_600, altitude: 12, speed: 4.25,
            course: 271, horizontalAccuracy: 5, batteryState: .charging, batteryLevel: 0.8)
        let message = OwnTracksLocation(point: point, identity: OwnTracksIdentity(deviceID: "alice/phone"))
        #expect(String(decoding: message.jsonBody(), as: UTF8.self) == #"{"_type":"location","lat":45.490975,"lon":-77.696315,"tst":1443711600,"acc":5,"alt":12,"vel":15,"cog":271,"batt":80,"bs":2,"tid":"ne","topic":"owntracks/alice/phone"}"#)
    }

    @Test func unknownsAreLeftOut() {
        let point = LocationFeature(longitude: 2.5, latitude: 48, timestamp: 1_700_000_000)
        let message = OwnTracksLocation(point: point, identity: OwnTracksIdentity(deviceID: "van"))
        #expect(String(decoding: message.jsonBody(), as: UTF8.self) == #"{"_type":"location","lat":48,"lon":2.5,"tst":1700000000,"tid":"an","topic":"owntracks/van"}"#)
    }
}

@Suite struct SyncStateTests {
    @Test func roundTrip() throws {
        var state = SyncState()
        state.lastAttempt = 1_800_000_100
        state.lastSuccess = 1_800_000_000
        state.lastFailure = 1_800_000_100
        state.consecutiveFailures = 3
        state.nextAttempt = 1_800_000_400
        state.lastStatus = 503
        state.lastError = "server answered \"503\""
        state.geocode = "Ottawa"
        #expect(String(decoding: state.encoded, as: UTF8.self) == #"{"version":1,"last_attempt":"2027-01-15T08:01:40Z","last_success":"2027-01-15T08:00:00Z","last_failure":"2027-01-15T08:01:40Z","consecutive_failures":3,"next_attempt":"2027-01-15T08:06:40Z","last_status":503,"last_error":"server answered \"503\"","geocode":"Ottawa","skipped_records":0}"# + "\n")
        #expect(SyncState(parsing: state.encoded) == state)
        #expect(SyncState(parsing: SyncState().encoded) == SyncState())
        #expect(SyncState(parsing: Array("not json".utf8)) == nil)
    }

    @Test func backoffDoublesToTheCapWithJitter() {
        let backoff = SyncBackoff()
        #expect((1...8).map { backoff.delay(afterFailures: $0, random: 0.5) } == [60, 120, 240, 480, 960, 1920, 3600, 3600])
        #expect(backoff.delay(afterFailures: 1, random: 0) == 48)
        #expect(backoff.delay(afterFailures: 1, random: 1) == 72)
        #expect(backoff.delay(afterFailures: 1000, random: 0.999) < 3600 * 1.2)
    }

    @Test func redaction() {
        let request = SyncRequest(
            url: "https://e.com/in?token=a%2Bb&raw=a+b",
            headers: [.init("Authorization", "Bearer a+b"), .init("User-Agent", "x")], body: [])
        let shown = request.redacted(secret: "a+b")
        #expect(shown.url == "https://e.com/in?token=<redacted>&raw=<redacted>")
        #expect(shown.headers == [.init("Authorization", "Bearer <redacted>"), .init("User-Agent", "x")])
    }

    @Test func endpointParts() {
        #expect(EndpointURL("HTTPS://User:pw@Example.COM:8443/x?y").map { [$0.scheme, $0.host] } == ["https", "example.com"])
        #expect(EndpointURL("http://[::1]:8080/").map { [$0.scheme, $0.host] } == ["http", "::1"])
        #expect(EndpointURL("ftp://x") == nil)
    }
}
