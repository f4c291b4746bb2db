/// Merges the sentences of one reporting cycle into one ``Fix``.
///
/// A reporting cycle is the run of consecutive sentences with the same UTC time of day.
/// Sentences without a time field (GSA, VTG) join the cycle they arrive in; those that
/// arrive before the first timed sentence join the first cycle. A sentence of a timed type
/// whose time field is empty (receivers without a fix) opens an untimed cycle, which is
/// never emitted.
///
/// A cycle is complete, and is emitted or dropped, at the first of:
/// - its cycle-ending sentence, when reading live (`closesCyclesEarly`): like gpsd, the
///   assembler learns which sentence ends the receiver's cycle: whenever the time changes,
///   the last sentence before the change (its type, and which occurrence of that type in
///   the cycle: u-blox sends one GSA per constellation) becomes the cycle ender, and from
///   then on a cycle is emitted as soon as its ender arrives, not one epoch later. An ender
///   that proves wrong (a sentence of its cycle still arrives) is never learned again.
///   Files are read whole, where waiting for the time change costs nothing and merges
///   every sentence of every cycle, so they do not close early;
/// - a sentence with another time (the receiver's cycle changed, or the ender was skipped);
/// - ``closeCycle()``: the reader saw no input for a while (live input; see
///   ``QuietInterval``);
/// - ``finish()``: end of input, so the last epoch of a capture is emitted like the others.
/// A timed sentence that still arrives for a cycle already emitted is dropped and counted
/// as late (``DecoderStatistics/lateSentences``); when the cycle was ended by its learned
/// ender, the ender was wrong and is learned again at the next change of time.
///
/// A cycle becomes a fix only if it has a time, a position, and a sentence stating a valid
/// fix (RMC or GLL status `A`, GGA quality above 0, a GNS mode letter other than `N`),
/// and none stating otherwise: RMC or GLL status `V`, mode indicator `N`, GGA quality 0,
/// GNS mode all `N` each make the cycle invalid (invalid wins). GSA fix type 1 does too,
/// unless another GSA of the same cycle reports a fix: receivers send one GSA per
/// constellation, and one constellation without satellites does not void the fix.
///
/// Merging: of several positions the last of the cycle wins, as in gpsd (a chartplotter
/// relaying RMC, GGA and GLL of one time from different sources reports the last one's);
/// of several speeds the finest (a km/h field beats a knots field with as many decimals;
/// on drive.nmea the VTG km/h field is the exact recorded speed), of several courses the
/// one with the most decimals; otherwise the first value of the cycle is kept.
/// The mode is the GSA fix type, else 3D when the cycle has an altitude, else 2D; a 2D fix
/// carries no altitude. Accuracy comes from ``AccuracyModel``.
///
/// Dates come from RMC or ZDA (learned from valid cycles only), else from the stream's
/// last date, else from the ``DatePolicy``; see there.
public struct FixAssembler: Sendable {
    /// Where dates come from before the stream has stated one.
    public let datePolicy: DatePolicy
    /// Cycles dropped as invalid or undated, week rollover corrections, and fixes emitted.
    public private(set) var statistics = DecoderStatistics()

    private var cycle = Cycle()
    /// The day and time of the last fix dated from the stream or a fixed date.
    private var reference: (day: Int64, time: TimeOfDay)?
    /// Whether cycles are emitted at their learned ender (live input).
    public let closesCyclesEarly: Bool
    /// The sentence that ends the receiver's cycle, once learned.
    public private(set) var ender: CycleEnder?
    /// Enders that proved wrong: a sentence of their cycle came after them.
    private var wrongEnders: [CycleEnder] = []
    /// The time of the cycle last completed before its time changed, and whether its ender did it.
    private var closed: (identity: Cycle.Identity, byEnder: Bool)?
    /// The last sentence since the time last changed, and how often each kind came.
    private var last: NMEASentence.Kind?
    private var occurrences = [Int](repeating: 0, count: NMEASentence.Kind.allCases.count)

    /// A sentence type and its occurrence in the cycle (1 for the first).
    public struct CycleEnder: Sendable, Equatable {
        public var kind: NMEASentence.Kind
        public var occurrence: Int
    }

    /// Creates an assembler with a policy for fixes before the stream's first date.
    public init(datePolicy: DatePolicy = .fromStreamOnly, closesCyclesEarly: Bool = false) {
        self.datePolicy = datePolicy
        self.closesCyclesEarly = closesCyclesEarly
    }

    /// Whether sentences wait in an open cycle that ``closeCycle()`` would complete.
    public var hasOpenCycle: Bool {
        if case .time = cycle.identity { return !cycle.isEmpty }
        return false
    }

    /// Adds a decoded sentence; returns the fix of the cycle it completes, if that was a
    /// valid, dated fix (see ``add(_:into:)`` for the rare sentence that completes two).
    public mutating func add(_ sentence: NMEASentence) -> Fix? {
        var fixes: [Fix] = []
        add(sentence, into: &fixes)
        return fixes.last
    }

    /// Adds a decoded sentence, appending the fixes of the cycles it completes: the
    /// previous cycle when this sentence starts a new one, and this sentence's own cycle
    /// when it is the learned ender.
    public mutating func add(_ sentence: NMEASentence, into fixes: inout [Fix]) {
        if sentence.kind.carriesTime {
            let identity: Cycle.Identity = sentence.timeOfDay.map { .time($0) } ?? .untimed
            if let closed, closed.identity == identity {
                statistics.lateSentences += 1
                if closed.byEnder, let wrong = ender {
                    wrongEnders.append(wrong)
                    ender = nil
                }
                note(sentence.kind)
                return
            }
            if closed != nil {
                // A new time after a completed cycle: the untimed sentences since then open it.
                closed = nil
                resetPeriod()
                cycle.identity = identity
            } else if cycle.identity == .unset || cycle.identity == identity {
                cycle.identity = identity
            } else {
                if closesCyclesEarly, let last {
                    let learned = CycleEnder(kind: last, occurrence: occurrences[last.index])
                    if !wrongEnders.contains(learned) { ender = learned }
                }
                resetPeriod()
                if let fix = complete() { fixes.append(fix) }
                cycle = Cycle()
                cycle.identity = identity
            }
        }
        cycle.merge(sentence)
        note(sentence.kind)
        if let ender, ender.kind == sentence.kind, ender.occurrence == occurrences[sentence.kind.index],
           case .time = cycle.identity {
            close(byEnder: true, into: &fixes)
        }
    }

    /// Completes the open cycle now (the input went quiet), appending its fix if it is a
    /// valid, dated one. Sentences that still come with its time are dropped as late.
    public mutating func closeCycle(into fixes: inout [Fix]) {
        guard hasOpenCycle else { return }
        close(byEnder: false, into: &fixes)
    }

    private mutating func close(byEnder: Bool, into fixes: inout [Fix]) {
        if let fix = complete() { fixes.append(fix) }
        closed = (cycle.identity, byEnder)
        cycle = Cycle()
    }

    private mutating func note(_ kind: NMEASentence.Kind) {
        last = kind
        occurrences[kind.index] += 1
    }

    private mutating func resetPeriod() {
        last = nil
        for index in occurrences.indices { occurrences[index] = 0 }
    }

    /// Ends the input: returns the fix of the last cycle if it is a valid, dated fix, and
    /// resets the assembler for a new stream (statistics kept).
    public mutating func finish() -> Fix? {
        let fix = complete()
        cycle = Cycle()
        reference = nil
        ender = nil
        wrongEnders = []
        closed = nil
        resetPeriod()
        return fix
    }

    private mutating func complete() -> Fix? {
        guard !cycle.isEmpty else { return nil }
        guard case .time(let time) = cycle.identity, var fix = cycle.fix() else {
            statistics.invalidFixes += 1
            return nil
        }
        guard let day = day(for: time) else {
            statistics.undatedFixes += 1
            return nil
        }
        fix.time = day * 86_400 + Int64(time.seconds)
        fix.nanoseconds = time.nanoseconds
        statistics.fixes += 1
        return fix
    }

    /// The day (since 1970-01-01) of a valid cycle at `time`, or nil when undated.
    private mutating func day(for time: TimeOfDay) -> Int64? {
        if let date = cycle.date {
            var now: Int64?
            if case .systemClock(let clock) = datePolicy { now = clock() }
            let (day, corrected) = GPSWeekRollover.correct(day: date.daysSinceEpoch, now: now)
            if corrected { statistics.weekRolloverCorrections += 1 }
            reference = (day, time)
            return day
        }
        if let reference {
            let day = FixAssembler.nearestDay(
                to: reference.day * 86_400 + Int64(reference.time.seconds), around: reference.day, time: time)
            self.reference = (day, time)
            return day
        }
        switch datePolicy {
        case .fromStreamOnly:
            return nil
        case .fixed(let year, let month, let day):
            guard let date = CivilDate(year: year, month: month, day: day) else { return nil }
            reference = (date.daysSinceEpoch, time)
            return date.daysSinceEpoch
        case .systemClock(let now):
            let clock = now()
            let day = FixAssembler.nearestDay(to: clock, around: FixAssembler.floorDivide(clock, 86_400), time: time)
            let distance = day * 86_400 + Int64(time.seconds) - clock
            guard abs(distance) <= DatePolicy.clockTolerance else { return nil }
            return day
        }
    }

    /// Of the days before, at and after `day`, the one on which `time` is nearest to `instant`.
    private static func nearestDay(to instant: Int64, around day: Int64, time: TimeOfDay) -> Int64 {
        var best = day
        var bestDistance = Int64.max
        for candidate in (day - 1)...(day + 1) {
            let distance = abs(candidate * 86_400 + Int64(time.seconds) - instant)
            if distance < bestDistance {
                best = candidate
                bestDistance = distance
            }
        }
        return best
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}

/// The sentences of one reporting cycle, merged.
private struct Cycle {
    enum Identity: Equatable {
        /// No timed sentence yet: the start of the stream.
        case unset
        /// Timed sentence types with an empty time field.
        case untimed
        /// The time of day of every timed sentence of the cycle.
        case time(TimeOfDay)
    }

    var identity = Identity.unset
    var isEmpty = true
    var date: CivilDate?
    var latitude = 0.0
    var longitude = 0.0
    var positionDecimals = -1
    var altitude: Double?
    var speed: Double?
    var speedResolution = Double.infinity
    var course: Double?
    var courseDecimals = -1
    var statesValid = false
    var statesInvalid = false
    var gsaStatesFix = false
    var gsaStatesNoFix = false
    var gsaMode: FixMode?
    var ggaQuality: FixQuality?
    var modeQuality: FixQuality?
    var satellitesUsed: Int?
    var gsaSatellitesUsed: Int?
    var pdop: Double?
    var hdop: Double?
    var vdop: Double?
    var ggaHDOP: Double?
    var latitudeError: Double?
    var longitudeError: Double?
    var altitudeError: Double?

    mutating func merge(_ s: NMEASentence) {
        isEmpty = false
        if s.kind == .gsa {
            switch s.validity {
            case .valid?: gsaStatesFix = true
            case .invalid?: gsaStatesNoFix = true
            case nil: break
            }
            if let mode = s.fixMode, gsaMode == nil || mode == .threeD { gsaMode = mode }
            if let used = s.satellitesUsed { gsaSatellitesUsed = (gsaSatellitesUsed ?? 0) + used }
            if pdop == nil { pdop = s.pdop }
            if hdop == nil { hdop = s.hdop }
            if vdop == nil { vdop = s.vdop }
            return
        }
        switch s.validity {
        case .valid?: statesValid = true
        case .invalid?: statesInvalid = true
        case nil: break
        }
        if date == nil { date = s.date }
        if let lat = s.latitude, let lon = s.longitude {
            latitude = lat
            longitude = lon
            positionDecimals = s.positionDecimals
        }
        if altitude == nil { altitude = s.altitude }
        if let speed = s.speed, s.speedResolution < speedResolution {
            self.speed = speed
            speedResolution = s.speedResolution
        }
        if let course = s.course, s.courseDecimals > courseDecimals {
            self.course = course
            courseDecimals = s.courseDecimals
        }
        if let quality = s.quality {
            if s.kind == .gga {
                if ggaQuality == nil { ggaQuality = quality }
            } else if modeQuality == nil || quality.rank > modeQuality!.rank {
                modeQuality = quality
            }
        }
        if let used = s.satellitesUsed { satellitesUsed = max(satellitesUsed ?? 0, used) }
        if ggaHDOP == nil { ggaHDOP = s.hdop }
        if latitudeError == nil { latitudeError = s.latitudeError }
        if longitudeError == nil { longitudeError = s.longitudeError }
        if altitudeError == nil { altitudeError = s.altitudeError }
    }

    /// The fix without its time, or nil when the cycle is not a valid fix.
    func fix() -> Fix? {
        guard positionDecimals >= 0, statesValid, !statesInvalid, !(gsaStatesNoFix && !gsaStatesFix)
        else { return nil }
        let mode = gsaMode ?? (altitude != nil ? .threeD : .twoD)
        var fix = Fix(
            time: 0, latitude: latitude, longitude: longitude,
            altitude: mode == .threeD ? altitude : nil,
            speed: speed, course: course, mode: mode, quality: ggaQuality ?? modeQuality,
            satellitesUsed: satellitesUsed ?? gsaSatellitesUsed,
            pdop: pdop, hdop: hdop ?? ggaHDOP, vdop: vdop,
            latitudeError: latitudeError, longitudeError: longitudeError, altitudeError: altitudeError)
        AccuracyModel.apply(to: &fix)
        return fix
    }
}
