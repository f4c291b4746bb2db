import OverlandJSON

extension LocationFeature {
    /// The location Feature of a stored line read without a JSON tree (`JSONReader`), or
    /// nil when the line is anything but a well-formed location Feature that
    /// `init(json:)` would read: then the caller reads it through the tree, which decides
    /// (and names the error). What it gives is what `init(json:)` gives for the line: both
    /// read the properties into `FeatureFields`.
    static func readingLine(_ line: ArraySlice<UInt8>) -> LocationFeature? {
        var point: LocationFeature?
        _ = JSONReader.read(line, limits: OwnTracksMessage.recordLimits) { (reader: inout JSONReader) throws(JSONError) in
            var members = FeatureLineReader()
            guard try members.readFeature(&reader), let (longitude, latitude) = members.coordinates else { return false }
            point = try? members.fields.feature(longitude: longitude, latitude: latitude)
            return true
        }
        return point
    }
}

/// The members of a location Feature line as `LocationFeature.init(json:)` reads them,
/// the properties into `FeatureFields`. Anything it does not expect (a repeated top-level
/// or geometry member, a container where a location has none) makes `readFeature` give
/// false, and the tree decides.
struct FeatureLineReader {
    var fields = FeatureFields()
    var isFeature = false
    var isPoint = false
    var coordinates: (Double, Double)?
    /// One bit per top-level and geometry member met (`once`).
    var seen: UInt8 = 0

    /// Reads the top-level object; false when the line is not as expected.
    mutating func readFeature(_ reader: inout JSONReader) throws(JSONError) -> Bool {
        guard try reader.next() == .objectStart else { return false }
        var hasProperties = false
        while case .key(let key) = try reader.next() {
            let value = try reader.next()
            if reader.text(key, is: "type") {
                guard once(0), case .string(let text) = value else { return false }
                isFeature = reader.text(text, is: "Feature")
            } else if reader.text(key, is: "geometry") {
                guard once(1), value == .objectStart, try readGeometry(&reader) else { return false }
            } else if reader.text(key, is: "properties") {
                guard once(2), value == .objectStart, try readProperties(&reader) else { return false }
                hasProperties = true
            } else {
                try reader.skip(value)
            }
        }
        return try reader.next() == .end && isFeature && isPoint && coordinates != nil && hasProperties
    }

    /// Whether the member numbered `member` is met for the first time.
    private mutating func once(_ member: Int) -> Bool {
        defer { seen |= 1 << member }
        return seen & (1 << member) == 0
    }

    private mutating func readGeometry(_ reader: inout JSONReader) throws(JSONError) -> Bool {
        while case .key(let key) = try reader.next() {
            let value = try reader.next()
            if reader.text(key, is: "type") {
                guard once(3), case .string(let text) = value else { return false }
                isPoint = reader.text(text, is: "Point")
            } else if reader.text(key, is: "coordinates") {
                guard once(4), value == .arrayStart, try readCoordinates(&reader) else { return false }
            } else {
                try reader.skip(value)
            }
        }
        return true
    }

    /// The first two elements, numbers; the rest skipped.
    private mutating func readCoordinates(_ reader: inout JSONReader) throws(JSONError) -> Bool {
        guard case .number(let longitude) = try reader.next(), case .number(let latitude) = try reader.next() else {
            return false
        }
        coordinates = (longitude, latitude)
        while true {
            let token = try reader.next()
            if token == .arrayEnd { return true }
            try reader.skip(token)
        }
    }

    private mutating func readProperties(_ reader: inout JSONReader) throws(JSONError) -> Bool {
        while case .key(let key) = try reader.next() {
            guard try readProperty(key, &reader) else { return false }
        }
        return true
    }

    /// One property's value, kept by its key when a location reads it; false for a
    /// container where a location has none.
    private mutating func readProperty(_ key: JSONReader.Text, _ reader: inout JSONReader) throws(JSONError) -> Bool {
        let token = try reader.next()
        let known = key.hasEscapes ? FeatureFields.Key.named(reader.string(key)) : FeatureFields.Key.named(reader.bytes(key))
        guard let known else {
            try reader.skip(token)
            return true
        }
        let value: FeatureFields.Value
        switch token {
        case .null: value = .null
        case .number(let number): value = .number(number)
        case .string(let text): value = .string(reader.string(text))
        case .bool(let flag): value = .bool(flag)
        case .arrayStart: value = .words(try readMotion(&reader))
        default: return false
        }
        fields.set(known, value)
        return true
    }

    /// The motion words: what is not a known word (or not a string) is left out.
    private func readMotion(_ reader: inout JSONReader) throws(JSONError) -> [Motion] {
        var words: [Motion] = []
        while true {
            let token = try reader.next()
            if token == .arrayEnd { return words }
            if case .string(let text) = token, let word = Motion(rawValue: reader.string(text)) {
                words.append(word)
            }
            try reader.skip(token)
        }
    }
}
