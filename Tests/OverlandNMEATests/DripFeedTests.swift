import TestSupport
import OverlandNMEA
import Testing

/// The same input in chunks of 1, 2, 7 bytes and whole gives the same fixes and statistics
/// (NIO's ByteToMessageDecoderVerifier).
@Suite("Drip-feed")
struct DripFeedTests {
    @Test("every gpsd capture", arguments: Samples.captureNames)
    func capture(_ name: String) throws {
        let bytes = try Samples.capture(name)
        let whole = decodeAll(NMEAStreamDecoder(), bytes)
        for chunk in [1, 2, 7] {
            let dripped = decodeAll(NMEAStreamDecoder(), bytes, chunkSize: chunk)
            #expect(dripped.0 == whole.0, "chunk \(chunk)")
            #expect(dripped.1 == whole.1, "chunk \(chunk)")
        }
    }

    @Test("a 98-minute drive in odd chunk sizes")
    func drive() throws {
        let bytes = Array(GeneratedDrive.standard.text.utf8)
        let whole = decodeAll(NMEAStreamDecoder(), bytes)
        for chunk in [7, 4093] {
            let dripped = decodeAll(NMEAStreamDecoder(), bytes, chunkSize: chunk)
            #expect(dripped.0 == whole.0)
            #expect(dripped.1 == whole.1)
        }
    }

    @Test("gpsd JSON fixtures", arguments: ["gpsd-beidou-bd.jsonl", "gpsd-quectel-l76k.jsonl"])
    func gpsdJSON(_ name: String) throws {
        let bytes = try Samples.fixture(name)
        let whole = decodeAll(GPSDStreamDecoder(), bytes)
        #expect(!whole.0.isEmpty)
        for chunk in [1, 2, 7] {
            let dripped = decodeAll(GPSDStreamDecoder(), bytes, chunkSize: chunk)
            #expect(dripped.0 == whole.0)
            #expect(dripped.1 == whole.1)
        }
    }
}
