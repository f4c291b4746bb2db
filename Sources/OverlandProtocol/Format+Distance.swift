import OverlandJSON

extension Format {
    /// A distance in whole metres (as a trip record keeps it), or in km with one decimal.
    public static func distance(_ metres: Double) -> String {
        metres < 1000 ? "\(TripRecord.wholeMetres(metres)) m" : tenths(metres / 1000).map { "\($0) km" } ?? "out of range"
    }
}
