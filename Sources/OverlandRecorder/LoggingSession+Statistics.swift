import OverlandJSON

extension LoggingSession {
    /// `overland-log --stats`: what the decoders read, then what the recorder logged and
    /// dropped, one line each.
    public var statisticsLines: [String] {
        let counts = recorder.statistics
        let optional: [(Int, String)] = [
            (counts.droppedSameSecond, "same second as the previous fix"), (counts.droppedAlreadyLogged, "already in the journal"),
            (counts.droppedStationary, "standing still"),
        ]
        let more = optional.filter { $0.0 > 0 }.map { ", \($0.0) \($0.1)" }.joined()
        let leftOut = counts.valuesLeftOut > 0
            ? "; \(Plural.count(counts.valuesLeftOut, "value")) out of range left out of the points" : ""
        return [
            decoderStatistics.summary(),
            "\(Plural.count(counts.fixes, "fix")), \(Plural.count(recordsAppended, "point")) logged; dropped: "
                + "\(counts.droppedInterval) by min time, \(counts.droppedDistance) by min distance, "
                + "\(counts.droppedAccuracy) by accuracy, \(counts.droppedOutOfOrder) out of order, "
                + "\(counts.droppedNotSignificant) not significant, \(counts.droppedTrackingOff) with tracking off\(more)\(leftOut)",
        ]
    }
}
