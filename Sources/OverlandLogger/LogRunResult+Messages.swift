import OverlandInput

extension LogRunResult {
    /// The user's to fix: an input with nothing recognisable (wrong file, wrong port
    /// speed), or times of day without a date (GGA only), so that nothing was logged.
    public func problem(with input: LogInput) -> String? {
        let shownName = input.name == "standard input" ? input.name : "'\(input.name)'"
        guard finished else { return nil }
        if bytesRead > 0 && !recognisedAnything {
            return "\(shownName): not \(InputDecoders.titles): \(contentDescription)"
        }
        guard statistics.fixes == 0, statistics.undatedFixes > 0 else { return nil }
        let count = statistics.undatedFixes
        return "\(shownName): \(count) \(count == 1 ? "fix has" : "fixes have") no date (times of day only: " +
            "no RMC or ZDA sentence\(input.isLive ? ", and not within 10 minutes of the system clock" : "")); " +
            "give the UTC date of the first fix with --date YYYY-MM-DD"
    }

    /// A file import cut short by a signal: how far it was read, and that running it
    /// again finishes it.
    public func interruption(of input: LogInput) -> String {
        let done = input.size.map { size in
            "\(bytesRead * 100 / max(size, 1))% (\(bytesRead) of \(size) bytes)"
        } ?? "\(bytesRead) bytes"
        return "interrupted: '\(input.name)' read to \(done); the points read are " +
            "committed; run it again to finish (what the journal holds is not logged twice)"
    }
}
