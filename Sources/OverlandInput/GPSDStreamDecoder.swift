/// Bytes of gpsd JSON in, fixes out: a ``TextLineFramer`` and ``GPSDReportDecoder`` in one
/// push decoder.
///
/// gpsd may send several TPV reports for one epoch as sentences of the cycle arrive (the
/// later ones more complete); consecutive TPV fixes with the same time are merged into one
/// fix, a later report's members replacing the earlier one's. A fix is therefore emitted
/// when a TPV with another time arrives, at ``closeCycle(into:)`` (the input went quiet),
/// or at ``finish(into:)``. A TPV with the time of a fix already emitted is dropped as late.
public struct GPSDStreamDecoder: Sendable {
    private var framer: TextLineFramer
    private var pending: Fix?
    /// The time of the fix last emitted by ``closeCycle(into:)``.
    private var closed: (time: Int64, nanoseconds: Int32)?
    private var counts = DecoderStatistics()
    /// gpsd's own counters, added to ``statistics`` when asked.
    private var reports = GPSDStatistics()

    /// Creates a decoder that discards lines longer than `maximumLineLength` bytes.
    public init(maximumLineLength: Int = TextLineFramer.defaultMaximumLineLength) {
        framer = TextLineFramer(maximumLineLength: maximumLineLength)
    }

    /// Everything counted so far by the framer and the report decoder.
    public var statistics: DecoderStatistics {
        var total = counts
        total.add(framer.statistics)
        total[GPSDStatistics.self] = reports
        return total
    }

    /// Decodes a chunk of the stream, appending the fixes it completes.
    public mutating func push(_ bytes: some Collection<UInt8>, into fixes: inout [Fix]) {
        framer.append(bytes)
        while let line = framer.nextLine() {
            handle(line, into: &fixes)
        }
    }

    /// Ends the input: decodes a last unterminated line and appends the pending fix; resets
    /// the decoder for a new stream (statistics kept).
    public mutating func finish(into fixes: inout [Fix]) {
        if let line = framer.finish() {
            handle(line, into: &fixes)
        }
        if let pending {
            counts.fixes += 1
            fixes.append(pending)
        }
        pending = nil
        closed = nil
    }

    /// Whether a fix waits for more reports of its epoch.
    public var hasOpenCycle: Bool { pending != nil }

    /// Emits the waiting fix now (the input went quiet).
    public mutating func closeCycle(into fixes: inout [Fix]) {
        guard let pending else { return }
        counts.fixes += 1
        fixes.append(pending)
        closed = (pending.time, pending.nanoseconds)
        self.pending = nil
    }

    private mutating func handle(_ line: ArraySlice<UInt8>, into fixes: inout [Fix]) {
        switch GPSDReportDecoder.decode(line) {
        case .fix(let fix):
            reports.positionReports += 1
            if let closed, closed.time == fix.time, closed.nanoseconds == fix.nanoseconds {
                counts.lateSentences += 1
                return
            }
            closed = nil
            if var merged = pending, merged.time == fix.time, merged.nanoseconds == fix.nanoseconds {
                merged.merge(fix)
                pending = merged
                reports.mergedReports += 1
            } else {
                if let pending {
                    counts.fixes += 1
                    fixes.append(pending)
                }
                pending = fix
            }
        case .noFix:
            reports.positionReports += 1
            counts.invalidFixes += 1
        case .ignored:
            reports.ignoredReports += 1
        case .malformed:
            reports.malformedReports += 1
        }
    }
}

// MARK: - The input format

extension GPSDStreamDecoder: InputDecoder {
    public static let formatName = "gpsd"
    public static let formatTitle = "gpsd JSON"
    public static let formatDescription = "gpsd JSON reports (gpspipe -w, gpsd's socket)"
    /// The first line that is not blank, a comment or gpsd's greeting starts with `{`.
    public static func sniff(_ prefix: ArraySlice<UInt8>, isComplete: Bool) -> Sniff {
        switch InputFormat.detect(prefix, isComplete: isComplete) {
        case .gpsdJSON?: return .match
        case .nmea?: return .noMatch
        case nil: return .needMore
        }
    }
    public init(options: DecoderOptions) { self.init() }
}
