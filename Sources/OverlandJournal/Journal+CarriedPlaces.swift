import OverlandJSON

/// A run of records that a receiver acknowledged before a move brought them here
/// (`state/carried.json`, journal-format.md section 12): the target's records `range` were
/// acknowledged, in the source, by a reader that named its receiver `receiver`.
public struct CarriedPlace: Sendable, Equatable {
    /// How the reader names its receiver: 16 hex digits, opaque to the journal (the sync's
    /// fingerprint of where and how it sends).
    public var receiver: String
    public var range: Range<UInt64>

    public init(receiver: String, range: Range<UInt64>) {
        self.receiver = receiver
        self.range = range
    }

    /// 16 lower-case hex digits.
    public static func isReceiver(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}

/// The places a move carries into its target, so that an upload of the target to a
/// receiver that had the records before the move sends none of them again. The journal
/// knows receivers only by the name its readers give them; a reader that knows nothing of
/// this file sends the records again (duplicates, never a loss).
extension Journal {
    static let carriedStateName = "carried.json"
    /// At most this many runs are kept (the oldest go first: a run dropped means duplicates).
    static let maxCarriedPlaces = 256

    /// The runs carried here, oldest first. A file that is missing, unreadable or not as
    /// section 12 writes it carries nothing (its records are sent again, none is skipped).
    public func carriedPlaces() -> [CarriedPlace] {
        guard let bytes = try? readState(Self.carriedStateName),
              let value = try? JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 4, maxBytes: Self.maxStateFileBytes)),
              value["version"]?.double == 1, value["journal_id"]?.string.flatMap(JournalID.init(hex:)) == id,
              let list = value["places"]?.array, list.count <= Self.maxCarriedPlaces else { return [] }
        var places: [CarriedPlace] = []
        for item in list {
            guard let receiver = item["receiver"]?.string, CarriedPlace.isReceiver(receiver),
                  let from = Self.recordNumber(item["from"]), let next = Self.recordNumber(item["next"]), from < next else { return [] }
            places.append(CarriedPlace(receiver: receiver, range: from..<next))
        }
        return places
    }

    /// Where a reader whose receiver is `receiver` and whose place is `next` may continue:
    /// past every carried run of that receiver that holds its place (records its receiver
    /// already acknowledged). `next` when none does.
    public func carriedPlace(receiver: String, from next: UInt64) -> UInt64 {
        let mine = carriedPlaces().filter { $0.receiver == receiver }
        var place = next
        while let run = mine.first(where: { $0.range.contains(place) }) { place = run.range.upperBound }
        return place
    }

    /// Adds runs (a move's target, under its exclusive lock): each joined to a run of the
    /// same receiver it meets, those below the oldest segment dropped (nothing left to
    /// skip), the oldest dropped beyond `maxCarriedPlaces`. Written whole and durably.
    func addCarriedPlaces(_ added: [CarriedPlace]) throws(JournalError) {
        guard !added.isEmpty else { return }
        var places = carriedPlaces()
        for place in added {
            if let index = places.firstIndex(where: { $0.receiver == place.receiver && $0.range.overlapsOrMeets(place.range) }) {
                let joined = places[index].range
                places[index].range = min(joined.lowerBound, place.range.lowerBound)..<max(joined.upperBound, place.range.upperBound)
            } else {
                places.append(place)
            }
        }
        if let oldest = try segments().first?.firstSequence { places.removeAll { $0.range.upperBound <= oldest } }
        places = Array(places.suffix(Self.maxCarriedPlaces))
        var writer = JSONWriter()
        writer.appendRaw("{\"version\":1,\"journal_id\":" as StaticString)
        writer.appendString(id.description)
        writer.appendRaw(",\"places\":[" as StaticString)
        for (index, place) in places.enumerated() {
            writer.appendRaw((index == 0 ? "{\"receiver\":" : ",{\"receiver\":") as StaticString)
            writer.appendString(place.receiver)
            writer.appendRaw(",\"from\":")
            writer.appendInteger(Int64(place.range.lowerBound))
            writer.appendRaw(",\"next\":")
            writer.appendInteger(Int64(place.range.upperBound))
            writer.appendRaw("}")
        }
        writer.appendRaw("]}\n" as StaticString)
        try writeState(Self.carriedStateName, writer.bytes)
    }

    /// A record number in a JSON value: an integer from 0 to 2^53.
    private static func recordNumber(_ value: JSONValue?) -> UInt64? {
        guard let number = value?.double, SequenceNumber.isValidEnd(number) else { return nil }
        return UInt64(number)
    }
}

extension Range where Bound == UInt64 {
    func overlapsOrMeets(_ other: Range<UInt64>) -> Bool {
        lowerBound <= other.upperBound && other.lowerBound <= upperBound
    }
}
