/// One arithmetic run of whole seconds: `count` seconds from `start`, `step` apart.
struct TimeRun: Sendable, Equatable {
    var start: Int64
    var step: Int64
    var count: Int64
    var last: Int64 { start + step * (count - 1) }
    func contains(_ t: Int64) -> Bool { t >= start && t <= last && (t - start) % step == 0 }
}

/// The seconds of one device held in memory as runs, sorted by start with disjoint spans:
/// a drive logged every second is one run, every five seconds one run too, irregular
/// points a run each. Lookup is a binary search; insertion extends the last run or splits
/// one.
struct TimeRuns: Sendable, Equatable {
    private(set) var runs: [TimeRun] = []

    init() {}
    init(runs: [TimeRun]) { self.runs = runs }

    var seconds: Int64 { runs.reduce(0) { $0 + $1.count } }
    var earliest: Int64? { runs.first?.start }
    var latest: Int64? { runs.last?.last }

    func contains(_ second: Int64) -> Bool {
        guard let index = runIndex(atOrBefore: second) else { return false }
        return runs[index].contains(second)
    }

    /// Adds `second`; false when it was already held.
    @discardableResult
    mutating func insert(_ second: Int64) -> Bool {
        guard let index = runIndex(atOrBefore: second) else {
            runs.insert(TimeRun(start: second, step: 1, count: 1), at: 0)
            return true
        }
        let run = runs[index]
        if run.contains(second) { return false }
        if second > run.last {
            // After the run: extend it when the step fits (or set the step of a single),
            // unless that would reach over the next run's start.
            let nextStart = index + 1 < runs.count ? runs[index + 1].start : Int64.max
            if run.count == 1 && second < nextStart {
                runs[index].step = second - run.start
                runs[index].count = 2
            } else if second == run.last + run.step && second < nextStart {
                runs[index].count += 1
            } else {
                runs.insert(TimeRun(start: second, step: 1, count: 1), at: index + 1)
            }
            return true
        }
        // Inside the run's span but not on its step: split it around the second.
        let before = (second - run.start) / run.step + 1
        let left = TimeRun(start: run.start, step: run.step, count: before)
        let right = TimeRun(start: run.start + before * run.step, step: run.step, count: run.count - before)
        runs.replaceSubrange(index...index, with: [left, TimeRun(start: second, step: 1, count: 1), right])
        return true
    }

    /// The index of the last run starting at or before `second`.
    func runIndex(atOrBefore second: Int64) -> Int? {
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].start <= second { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }
}

/// Joins runs given in increasing order into as few runs as their steps allow.
struct TimeRunJoiner {
    private var pending: TimeRun?

    mutating func add(_ run: TimeRun, emit: (TimeRun) throws(JournalError) -> Void) throws(JournalError) {
        guard var held = pending else { pending = run; return }
        if run.count == 1 && held.count == 1 {
            held.step = run.start - held.start
            held.count = 2
        } else if run.start == held.last + held.step && (run.count == 1 || run.step == held.step) {
            held.count += run.count
        } else if held.count == 1 && run.start - held.start == run.step {
            held = TimeRun(start: held.start, step: run.step, count: run.count + 1)
        } else {
            try emit(held)
            held = run
        }
        pending = held
    }

    mutating func finish(emit: (TimeRun) throws(JournalError) -> Void) throws(JournalError) {
        if let held = pending { try emit(held) }
        pending = nil
    }

    /// Merges two increasing sequences of runs (each with disjoint spans) into one, in
    /// order: where one run's span reaches into the other's, it is split there. A second
    /// in both is emitted once.
    static func merge(_ nextA: () throws(JournalError) -> TimeRun?, _ nextB: () throws(JournalError) -> TimeRun?,
                      emit: (TimeRun) throws(JournalError) -> Void) throws(JournalError) {
        var joiner = TimeRunJoiner()
        var a = try nextA()
        var b = try nextB()
        while true {
            guard var x = a else {
                while let y = b { try joiner.add(y, emit: emit); b = try nextB() }
                break
            }
            guard var y = b else {
                try joiner.add(x, emit: emit)
                while let more = try nextA() { try joiner.add(more, emit: emit) }
                break
            }
            if x.start == y.start {
                // The same second in both: keep it in x only.
                if y.count == 1 { b = try nextB() } else { y.start += y.step; y.count -= 1; b = y }
                continue
            }
            let aFirst = x.start < y.start
            var low = aFirst ? x : y
            let high = aFirst ? y : x
            if low.last < high.start {
                try joiner.add(low, emit: emit)
                if aFirst { a = try nextA() } else { b = try nextB() }
                continue
            }
            // `high` starts inside `low`'s span: emit `low`'s seconds before it.
            let before = (high.start - low.start + low.step - 1) / low.step
            try joiner.add(TimeRun(start: low.start, step: low.step, count: before), emit: emit)
            low = TimeRun(start: low.start + before * low.step, step: low.step, count: low.count - before)
            if aFirst { x = low; a = x } else { y = low; b = y }
        }
        try joiner.finish(emit: emit)
    }
}
