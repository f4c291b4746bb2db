import OverlandJSON
import OverlandJournal
import OverlandProtocol

extension ReadBackPass {
    /// Reading a receiver's store: the setup request once, then a range in pages, each
    /// answer checked (2xx) and bounded (`answerLimit` points for one range).
    struct Session {
        var reader: any ReadBackReader
        let transport: any Transport
        let timeout: Duration
        let answerLimit: Int
        private var setUp = false

        init(reader: any ReadBackReader, transport: any Transport, timeout: Duration, answerLimit: Int) {
            self.reader = reader
            self.transport = transport
            self.timeout = timeout
            self.answerLimit = answerLimit
        }

        /// The receiver's points from `from` through `through`; a receiver that keeps only
        /// when it recorded a state holds a point from the moment it was sent, and is read
        /// up to `now`.
        mutating func read(from: Int64, through: Int64, now: Int64) async throws -> [StoredPoint] {
            if !setUp, let setup = reader.setupRequest() {
                reader = try reader.resolved(by: try await get(setup))
            }
            setUp = true
            let until = reader.keepsFixTime ? through : max(through, now)
            var held: [StoredPoint] = []
            var page = 0
            while true {
                let answer = try reader.parse(try await get(reader.request(from: from, through: until, page: page)), page: page)
                held += answer.points
                guard held.count <= answerLimit else {
                    throw ReadBackError("\(reader.receiverName) answered more than \(answerLimit) points for one range")
                }
                guard answer.hasMore else { return held }
                page += 1
            }
        }

        /// Sends one read request; a reply that is not 2xx is an error naming the status.
        func get(_ request: ReceiverRequest) async throws -> HTTPReply {
            let reply = try await transport.send(request, timeout: timeout)
            switch reply.status {
            case 200..<300: return reply
            case 401, 403:
                throw ReadBackError("\(reader.receiverName) refused the read credentials (HTTP \(reply.status)): check verify_token")
            default:
                throw ReadBackError("\(reader.receiverName) answered HTTP \(reply.status) to reading back")
            }
        }
    }

    /// A receiver's answer for one range, by second.
    struct HeldPoints {
        private var bySecond: [Int64: [StoredPoint]] = [:]
        private let all: [StoredPoint]
        private let keepsFixTime: Bool

        init(_ points: [StoredPoint], keepsFixTime: Bool) {
            self.keepsFixTime = keepsFixTime
            all = points
            for point in points { bySecond[point.time, default: []].append(point) }
        }

        /// Whether the receiver holds `point` for `deviceID`: the same second (where it
        /// keeps the fix's own) and the same position, filed under this device when the
        /// answer names devices.
        func holds(_ point: LocationFeature, deviceID: String) -> Bool {
            let candidates = keepsFixTime ? bySecond[point.timestamp] ?? [] : all
            return candidates.contains {
                $0.isAt(latitude: point.latitude, longitude: point.longitude) && ($0.device == nil || $0.device == deviceID)
            }
        }

        /// Whether the receiver holds another point in `point`'s second: another device's,
        /// or another position.
        func sharesSecond(_ point: LocationFeature, deviceID: String) -> Bool {
            guard keepsFixTime else { return false }
            return (bySecond[point.timestamp] ?? []).contains {
                !$0.isAt(latitude: point.latitude, longitude: point.longitude) || ($0.device != nil && $0.device != deviceID)
            }
        }
    }
}
