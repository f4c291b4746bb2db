/// The most points sent in one request ("locations per batch").
public enum BatchSize: Int, SettingChoice {
    case fifty = 50
    case hundred = 100
    case twoHundred = 200
    case fiveHundred = 500
    case thousand = 1000

    /// The protocol's spelling: the number in decimal.
    public var name: String { String(rawValue) }

    /// The number of points.
    public var count: Int { rawValue }
}
