import OverlandProtocol
import Testing

/// `LocationFeature.pointTimestamp(in:)`: the time of a location point as this package
/// writes it, read without parsing the line (journal stats, the logger's time index).
@Suite struct PointTimestampTests {
    @Test(arguments: [Int64(0), 1_700_000_000, 253_402_300_799])
    func readsWhatTheEncoderWrites(timestamp: Int64) {
        let line = LocationFeature(longitude: -75.69_87654, latitude: 45.42_12345, timestamp: timestamp, altitude: 70, speed: 12.5).jsonLine()
        #expect(LocationFeature.pointTimestamp(in: line) == timestamp)
        #expect(LocationFeature.pointTimestamp(in: line[...]) == timestamp, "a slice")
        #expect(line.withUnsafeBytes { LocationFeature.pointTimestamp(in: $0) } == timestamp, "bytes in memory")
    }

    @Test func nilForOtherRecordsAndCutLines() throws {
        let line = LocationFeature(longitude: 1, latitude: 2, timestamp: 1_700_000_000).jsonLine()
        let marker = Array(#""timestamp":""#.utf8)
        let markerEnd = (0...(line.count - marker.count)).first { Array(line[$0..<($0 + marker.count)]) == marker }.map { $0 + marker.count }
        let end = try #require(markerEnd)
        for cut in [0, 10, end - 1, end + 5, end + 19] {
            #expect(LocationFeature.pointTimestamp(in: line.prefix(cut)) == nil, "cut at \(cut)")
        }
        #expect(LocationFeature.pointTimestamp(in: line.prefix(end + 20)) == 1_700_000_000, "the timestamp whole")
        let action = Array(#"{"type":"Feature","geometry":null,"properties":{"timestamp":"2023-11-14T22:13:20Z","action":"pause"}}"#.utf8)
        #expect(LocationFeature.pointTimestamp(in: action) == nil)
        let otherLayout = Array(#"{"geometry":{"type":"Point","coordinates":[1,2]},"type":"Feature","properties":{"timestamp":"2023-11-14T22:13:20Z"}}"#.utf8)
        #expect(LocationFeature.pointTimestamp(in: otherLayout) == nil)
    }
}
