/// The map's colours: tracks from a palette without the markers' green, black, purple and
/// orange, so that each thing drawn is told apart (and found in a screenshot).
enum MapColors {
    static let background = "#f4f2ec"
    static let tracks = ["#1f5fbf", "#d62728", "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#4a4aa0", "#7f7f7f"]
    static let gap = "#555555"
    static let start = "#2ca02c"
    static let end = "#111111"
    static let stop = "#9467bd"
    static let unsent = "#ff7f0e"

    static func track(_ index: Int) -> String { tracks[index % tracks.count] }

    /// Speed classes (km/h, upper bounds) and their colours, slow to fast.
    static let speedClasses: [(upTo: Double, color: String, label: String)] = [
        (5, "#4575b4", "under 5 km/h"), (30, "#74add1", "5–30 km/h"), (60, "#fdae61", "30–60 km/h"),
        (90, "#f46d43", "60–90 km/h"), (.infinity, "#a50026", "90 km/h and over"),
    ]
    static let unknownSpeed = "#999999"

    static func speedClass(_ metresPerSecond: Float) -> Int {
        guard metresPerSecond >= 0 else { return -1 }
        let kmh = Double(metresPerSecond) * 3.6
        return speedClasses.firstIndex { kmh < $0.upTo } ?? speedClasses.count - 1
    }
}
