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
        /// What reading may spend at most (nil: no bound of its own).
        var budget: ReadBackBudget?
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
                let reply = try await spending(setup)
                do { reader = try reader.resolved(by: reply) } catch { throw Self.unreadable(error) }
            }
            setUp = true
            let until = reader.keepsFixTime ? through : max(through, now)
            var held: [StoredPoint] = []
            var page = 0
            while true {
                let reply = try await spending(reader.request(from: from, through: until, page: page))
                let answer: ReadBackPage
                do { answer = try reader.parse(reply, page: page) } catch { throw Self.unreadable(error) }
                held += answer.points
                guard held.count <= answerLimit else {
                    throw ReadBackError("\(reader.receiverName) answered more than \(answerLimit) points for one range")
                }
                guard answer.hasMore else { return held }
                page += 1
            }
        }

        /// A 2xx answer the reader cannot read: the read API is not where verify_url says, or
        /// not the receiver's (a configuration error, with what to set).
        static func unreadable(_ error: ReadBackError) -> ReadBackError {
            ReadBackError("\(error.description): check verify_url (the read API's base url) and the destination's profile",
                          isConfiguration: true)
        }

        /// Sends one read request within the budget.
        private mutating func spending(_ request: ReceiverRequest) async throws -> HTTPReply {
            try budget?.spendRequest()
            let reply = try await get(request)
            try budget?.spend(bytes: reply.body.count)
            return reply
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

    /// A receiver's answer for one range, by second, and the one rule both the pass and the
    /// audit match a point sent against it with (`isCopy`).
    struct HeldPoints {
        private var bySecond: [Int64: [StoredPoint]] = [:]
        private let all: [StoredPoint]
        private let keepsFixTime: Bool

        init(_ points: [StoredPoint], keepsFixTime: Bool) {
            self.keepsFixTime = keepsFixTime
            all = points
            for point in points { bySecond[point.time, default: []].append(point) }
        }

        /// Whether `stored` is a copy of `point` filed under `device`: the same second (where
        /// the receiver keeps the fix's own) and the same position, under this device when
        /// the answer names devices. Any number of copies of a point, and any number of
        /// points sent that one copy matches (the journal holding a point twice), are held.
        func isCopy(_ stored: StoredPoint, of point: LocationFeature, device: String) -> Bool {
            (!keepsFixTime || stored.time == point.timestamp) && stored.isAt(latitude: point.latitude, longitude: point.longitude)
                && (stored.device == nil || stored.device == device)
        }

        /// Whether the receiver holds a copy of `point` filed under `device`.
        func holds(_ point: LocationFeature, device: String) -> Bool {
            (keepsFixTime ? bySecond[point.timestamp] ?? [] : all).contains { isCopy($0, of: point, device: device) }
        }

        /// The points held that are a copy of none of `sent` (each with the device it was
        /// filed under): what the receiver holds beyond them.
        func unclaimed(by sent: [(point: LocationFeature, device: String)]) -> [StoredPoint] {
            guard keepsFixTime else { return all.filter { stored in !sent.contains { isCopy(stored, of: $0.point, device: $0.device) } } }
            let sentBySecond = Dictionary(grouping: sent, by: \.point.timestamp)
            return all.filter { stored in !(sentBySecond[stored.time] ?? []).contains { isCopy(stored, of: $0.point, device: $0.device) } }
        }

        /// Whether the receiver holds another point in `point`'s second: another device's,
        /// or another position.
        func sharesSecond(_ point: LocationFeature, device: String) -> Bool {
            guard keepsFixTime else { return false }
            return (bySecond[point.timestamp] ?? []).contains {
                !$0.isAt(latitude: point.latitude, longitude: point.longitude) || ($0.device != nil && $0.device != device)
            }
        }
    }
}
