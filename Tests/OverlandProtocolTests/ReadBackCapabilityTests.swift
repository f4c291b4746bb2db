import OverlandProtocol
import Testing

/// The read-back capabilities on the receivers' lines (`ReceiverProfile.all`,
/// `Receivers.table`) and the one answer `ReadBackSupport` makes of them.
@Suite struct ReadBackCapabilityTests {
    /// A destination's keys as a reader sees them, with every credential set.
    static func target(_ profile: ReceiverProfile, broker: ReadBackTarget.Broker? = nil) -> ReadBackTarget {
        ReadBackTarget(verifyURL: "http://read.example/", endpoint: "http://send.example/path", readToken: "read:token",
                       token: "bob:pw", deviceID: "van", profile: profile, broker: broker)
    }

    @Test func eachProfileHasOneLineAndEachReadableOneItsOwnReader() throws {
        #expect(Set(ReceiverProfile.all.map(\.name)).count == ReceiverProfile.all.count, "one line per profile")
        var receivers: [String] = []
        for profile in ReceiverProfile.all {
            switch profile.readBack {
            case .reader(let api):
                let reader = try api.reader(for: Self.target(profile))
                receivers.append(reader.receiverName)
                #expect(reader.settleSeconds > 0, "\(profile): a receiver is read once it had time to store")
                #expect(api.needsVerifyURL == nil, "\(profile): its url's origin is its read API's")
                for wireProtocol in WireProtocol.allCases where profile.fits(wireProtocol) && wireProtocol != .traccar && wireProtocol != .mqtt {
                    #expect(ReadBackSupport.problem(protocol: wireProtocol, profile: profile) == nil, "\(profile) over \(wireProtocol)")
                }
            case .unreadable(let why):
                #expect(why.contains("verify") && why.count > 40, "\(profile) says why it cannot be read back")
                for wireProtocol in WireProtocol.allCases {
                    #expect(ReadBackSupport.problem(protocol: wireProtocol, profile: profile) == why)
                }
            case .deferred:
                #expect(profile.changesNothing && profile == .none, "only the protocol as written leaves it to the protocol")
            }
        }
        #expect(Set(receivers).count == receivers.count, "no two profiles read through the same reader: \(receivers)")
        #expect(receivers.count >= 4)
    }

    @Test func aProtocolWithoutAReaderOfItsOwnNamesTheProfilesThatHaveOne() throws {
        for kind in Receivers.table {
            guard case .deferred = kind.readBack else { continue }
            let problem = try #require(ReadBackSupport.problem(protocol: kind.wireProtocol, profile: .none))
            #expect(problem.hasPrefix("verify needs to know which receiver reads back: set profile compass, dawarich, "))
            #expect(problem.hasSuffix(" first (or use protocol traccar)"))
            for profile in ReceiverProfile.all {
                #expect(problem.contains(" \(profile.name)") == (profile.readBack.api != nil), "\(profile) named only when readable")
            }
            #expect(throws: ReadBackError(problem)) { try ReadBackSupport.api(protocol: kind.wireProtocol, profile: .none) }
        }
        #expect(Receivers.table.filter { if case .deferred = $0.readBack { true } else { false } }.map(\.wireProtocol)
                == [.overland, .owntracks])
    }

    @Test func aProtocolWithItsOwnReaderIsReadThroughItWhateverTheProfile() throws {
        let traccar = try ReadBackSupport.api(protocol: .traccar, profile: .none).reader(for: Self.target(.none))
        #expect(traccar.receiverName == "Traccar")
        let broker = ReadBackTarget.Broker(topic: "owntracks/bob/van", discovery: nil)
        let fed = try ReadBackSupport.api(protocol: .mqtt, profile: .none).reader(for: Self.target(.none, broker: broker))
        #expect(fed.receiverName == "the OwnTracks Recorder")
        #expect(ReadBackSupport.problem(protocol: .mqtt, profile: .none) == BrokerFeed.needsVerifyURL)
        #expect(ReadBackSupport.problem(protocol: .mqtt, profile: .none, verifyURL: "http://r") == nil)
        #expect(ReadBackSupport.problem(protocol: .traccar, profile: .none, loggingMode: .latest)?.contains("logging_mode all") == true)
    }

    @Test func aReaderSaysWhichCredentialItLacks() {
        var target = Self.target(.compass)
        target.readToken = nil
        target.token = nil
        for profile in ReceiverProfile.all {
            guard let api = profile.readBack.api else { continue }
            target.profile = profile
            do {
                _ = try api.reader(for: target)
            } catch {
                #expect(error.description.contains("set "), "\(profile): \(error)")
            }
        }
        var compass = Self.target(.compass)
        compass.readToken = nil
        #expect(throws: ReadBackError("Compass is read with the database's read token: set verify_token (--token-stdin)")) {
            try ReadBackSupport.api(protocol: .overland, profile: .compass).reader(for: compass)
        }
        target.profile = .owntracksRecorder
        #expect(throws: Never.self, "a Recorder not behind a proxy is read without credentials") {
            try ReadBackSupport.api(protocol: .owntracks, profile: .owntracksRecorder).reader(for: target)
        }
    }
}
