import OverlandJournal
import OverlandSync
import Synchronization

extension Simulation {
    /// Performs one step; returns what failed (meaningful only while the power is on).
    func perform(_ step: Step) async -> SimulationFailure? {
        switch step {
        case .engine(let destination, let batch, let outcomes):
            guard let journal else { return SimulationFailure(kind: "error", message: "no journal open") }
            return await runEngine(journal, receiver: destination, batch: batch, outcomes)
        case .engines(let destination, let other, let outcomes):
            guard let journal else { return SimulationFailure(kind: "error", message: "no journal open") }
            besideFailure = nil
            let failure = await runEngine(journal, receiver: destination, batch: Self.maxBatch, outcomes) { [unowned self] in besideSync(other) }
            return besideFailure ?? failure
        case .stickEngine(let outcomes):
            guard let target else { return nil }
            return await runEngine(target, receiver: Self.stick, batch: Self.maxBatch, outcomes)
        case .move(let seal):
            return move(seal: seal)
        default:
            return performOnJournal(step)
        }
    }

    /// Performs a step of the logger, a hand-made sync, retention or repair.
    func performOnJournal(_ step: Step) -> SimulationFailure? {
        // A logger stopped by a fault (its start failed) is started again.
        if appender == nil, let journal { appender = try? makeAppender(journal) }
        guard let journal, let appender else { return SimulationFailure(kind: "error", message: "no journal open") }
        do {
            switch step {
            case .log(let count, let pad): try logPoints(count, pad: pad, appender)
            case .seal: try appender.sealActive()
            case .timeIndex: try saveTimeIndex(journal)
            case .sync(let destination, let batch, let outcome): try sync(journal, destination, batch: batch, outcome)
            case .prune: try prune(journal)
            case .lowerCursor(let destination): try lowerCursor(journal, destination)
            case .repair: try appender.repairAll()
            case .tripStart(let mode): try startTrip(mode, journal)
            case .tripStop: try stopTrip(journal, appender)
            case .settings(let version): try changeSettings(version)
            case .destinationAdd(let index): try addDestination(journal, index)
            case .destinationRemove(let index): try removeDestination(journal, index)
            case .pacedRun(let paced, let batches): try pacedRun(journal, paced: paced, batches: batches)
            case .cut, .cutAfterFloor, .fault, .engine, .engines, .stickEngine, .move: break
            }
            return nil
        } catch let failure as SimulationFailure {
            return failure
        } catch {
            return SimulationFailure(kind: "error", message: "\(error)")
        }
    }

    static func line(id: Int, pad: Int) -> [UInt8] {
        Array("{\"i\":\(id),\"s\":\(1_800_000_000 + id),\"p\":\"\(String(repeating: "x", count: pad))\"}".utf8)
    }

    /// The logger appends and commits; one step in three is a bulk import's, whose first
    /// half is committed on the appender's second thread (`commitInBackground`) while the
    /// second half is appended.
    func logPoints(_ count: Int, pad: Int, _ appender: JournalAppender) throws(JournalError) {
        let first = model.nextID
        model.nextID += count
        let bulk = pad % 3 == 0 && count > 1
        for id in first..<(first + count) {
            if bulk && id == first + count / 2 { try appender.commitInBackground(wallClock: disk.now) }
            try appender.append(Self.line(id: id, pad: pad), now: 0)
            model.pending.append(id)
        }
        disk.now += 1
        // Counted committed once the appender holds nothing waiting (`settlePending`).
        _ = try appender.commit(wallClock: disk.now)
    }

    func saveTimeIndex(_ journal: Journal) throws(JournalError) {
        let index = try journal.timeIndex(key: Invariants.timeKey)
        try index.save(through: try journal.endSequence())
    }

    /// What a sync does, through the calls it makes: read the cursor, read a batch, send
    /// it, move the cursor once acknowledged (`CursorWrites`), save the destination's state.
    func sync(_ journal: Journal, _ destination: Int, batch: Int, _ outcome: Step.Delivery) throws {
        guard let lock = try journal.tryLockCursors() else { throw JournalError.io(operation: "cursor lock held", path: journal.path, reason: "", code: 0) }
        defer { withExtendedLifetime(lock) {} }
        // As the sync engine does: a journal with a move pending is not synced.
        guard try journal.pendingMove() == nil else { return }
        let name = CursorName(Self.destinations[destination])!
        let next = try journal.cursor(for: name)
        let reader = try journal.records(from: next)
        var ids: [Int] = []
        var end = next
        while ids.count < batch, let record = try reader.next() {
            guard let id = Invariants.recordID(record.line) else { throw .untrusted(path: journal.path, reason: "record \(record.sequence) is neither a point nor a trip") as JournalError }
            ids.append(id)
            end = record.sequence + 1
        }
        var state = try SyncState.load(journal: journal, destination: name.text)
        state.lastAttempt = disk.now
        guard !ids.isEmpty else { return }
        if outcome != .reset {
            for id in ids { model.received[destination][id, default: 0] += outcome == .duplicated ? 2 : 1 }
            model.deliveredNow[destination].formUnion(ids)
            if let sent = sentFromBoth(ids, to: destination) { throw sent }
        }
        if outcome == .duplicated || outcome == .ackLost { model.resendAllowance[destination] += ids.count }
        if outcome == .acknowledged || outcome == .duplicated {
            try CursorWrites.advance(journal, name, to: end)
            state.lastSuccess = disk.now
            state.consecutiveFailures = 0
        } else {
            state.consecutiveFailures += 1
        }
        try state.save(in: journal, as: SyncState.fileName(forDestination: name.text))
    }

    /// One run of the real sync engine on `journal` to the receiver numbered `destination`
    /// (`receivers`) through a simulated receiver. Its report is not a failure of the
    /// simulation (a reset is a failed run, a pending move a refused one); what the receiver
    /// stored is.
    func runEngine(_ journal: Journal, receiver destination: Int, batch: Int, _ outcomes: [Step.Delivery],
                   beside: (() -> Void)? = nil) async -> SimulationFailure? {
        var configuration = SyncConfiguration(endpoint: "https://receiver.invalid/", token: "simulated", deviceID: "sim")
        configuration.batchSize = batch
        let receiver = SimulatedReceiver(outcomes, beside: beside)
        let now = disk.now
        // Every clock scripted for the run: the same seed makes the same writes.
        // The monotonic clock moves 0.3 s a look, so that the cursor is made durable mid-run too.
        let ticks = Mutex(0)
        let instant = ContinuousClock.now
        let timing = SyncTiming(wallClock: { now }, random: { 0.5 },
                                monotonicClock: { instant + .milliseconds(300) * ticks.withLock { $0 += 1; return $0 } })
        let engine = SyncEngine(journal: journal, configuration: configuration, transport: receiver,
                                cursor: CursorName(Self.receivers[destination])!, timing: timing)
        let segmentsBefore = (try? journal.segments().count) ?? 0
        let report = await engine.run(sendNow: true)
        // The engine's own retention, after a drain.
        coverage.segmentsRemoved += max(0, segmentsBefore - ((try? journal.segments().count) ?? segmentsBefore))
        for id in receiver.stored { model.received[destination][id, default: 0] += 1 }
        model.deliveredNow[destination].formUnion(receiver.stored)
        if destination != Self.stick, let sent = sentFromBoth(receiver.stored, to: destination) { return sent }
        // The records of each request that ended in a lost acknowledgement or a duplicate may come again.
        model.resendAllowance[destination] += receiver.answered.filter { $0.outcome == .ackLost || $0.outcome == .duplicated }
            .reduce(0) { $0 + $1.records }
        switch report.outcome {
        case .delivered, .nothingToSend, .retryLater: return nil
        case .configurationError where (try? journal.pendingMove()) != nil: return nil
        default: return disk.isDead ? nil : SimulationFailure(kind: "error", message: "sync engine: \(report.outcome): \(report.message ?? "")")
        }
    }

    /// Another destination of the same overland-sync run (`DestinationsRun` sends to every
    /// destination at once, under one cursor lock): a batch delivered and made durable
    /// (`deliverBatch`) while the engine's own destination is mid-run.
    func besideSync(_ destination: Int) {
        guard let journal, !disk.isDead, (try? journal.pendingMove()) == .some(nil) else { return }
        // What fails to write here the engine's run meets next (a cut, a fault).
        let sent = try? deliverBatch(journal, to: destination, durably: true)
        if besideFailure == nil { besideFailure = sent }
    }

    /// One run to every destination at once (`Step.pacedRun`): at each batch, `paced`
    /// moves in its progress record alone, as the MQTT sender does between its pacer's
    /// ticks, then each other destination's batch is made durable (the floor rewritten);
    /// `paced` is made durable at the run's end.
    func pacedRun(_ journal: Journal, paced: Int, batches: Int) throws {
        guard let lock = try journal.tryLockCursors() else { throw JournalError.io(operation: "cursor lock held", path: journal.path, reason: "", code: 0) }
        defer { withExtendedLifetime(lock) {} }
        guard try journal.pendingMove() == nil else { return }
        for _ in 0..<batches {
            if let sent = try deliverBatch(journal, to: paced, durably: false) { throw sent }
            for other in Self.destinations.indices where other != paced {
                if let sent = try deliverBatch(journal, to: other, durably: true) { throw sent }
            }
        }
        try CursorWrites.makeDurable(journal, CursorName(Self.destinations[paced])!)
    }

    /// A batch of up to 50 records delivered to `destination` and acknowledged, its cursor
    /// moved in its progress record (`durably: false`), then, `durably`, made durable (its
    /// cursor file written, the floor rewritten). Returns a record sent that is on the
    /// stick (`sentFromBoth`): the cursor moves all the same, as the sender's does.
    @discardableResult
    func deliverBatch(_ journal: Journal, to destination: Int, durably: Bool) throws -> SimulationFailure? {
        let name = CursorName(Self.destinations[destination])!
        let next = try journal.cursor(for: name)
        let reader = try journal.records(from: next)
        var ids: [Int] = []
        var end = next
        while ids.count < Self.maxBatch, let record = try reader.next() {
            if let id = Invariants.recordID(record.line) { ids.append(id) }
            end = record.sequence + 1
        }
        guard !ids.isEmpty else { return nil }
        for id in ids { model.received[destination][id, default: 0] += 1 }
        model.deliveredNow[destination].formUnion(ids)
        let sent = sentFromBoth(ids, to: destination)
        try CursorWrites.advance(journal, name, to: end, durably: false)
        if durably { try CursorWrites.makeDurable(journal, name) }
        return sent
    }

    /// A record sent from the source that is on the stick (section 12: once a record is in
    /// the target, the source never sends it again), but a trip record written again.
    func sentFromBoth(_ ids: [Int], to destination: Int) -> SimulationFailure? {
        guard let id = ids.first(where: { model.targetIDs.contains($0) && !model.writtenTwice.contains($0) }) else { return nil }
        return SimulationFailure(kind: "sent-twice", message: "\(Invariants.describe(id)) was sent from the journal to '\(Self.receivers[destination])' though it is on the stick")
    }

    /// Lowers a destination's cursor to the journal's first record (`destination add
    /// --from-start`): what its receiver already has there may come again.
    func lowerCursor(_ journal: Journal, _ destination: Int) throws(JournalError) {
        guard let lock = try journal.tryLockCursors() else { throw .io(operation: "cursor lock held", path: journal.path, reason: "", code: 0) }
        defer { withExtendedLifetime(lock) {} }
        guard try journal.pendingMove() == nil else { return }
        let name = CursorName(Self.destinations[destination])!
        let end = try journal.endSequence()
        let first = try journal.segments().first.map { min($0.firstSequence, end) } ?? end
        let place = try journal.cursor(for: name)
        guard first < place else { return }
        let reader = try journal.records(from: first)
        while let record = try reader.next(), record.sequence < place {
            guard let id = Invariants.recordID(record.line) else { continue }
            if model.received[destination][id] != nil { model.resendAllowance[destination] += 1 }
            // Unsent again for this destination: a move may now carry it (`Model.acknowledged`).
            model.acknowledged.remove(id)
        }
        try CursorWrites.advance(journal, name, to: first)
    }

    func prune(_ journal: Journal) throws(JournalError) {
        guard let lock = try journal.tryLockCursors() else { throw .io(operation: "cursor lock held", path: journal.path, reason: "", code: 0) }
        defer { withExtendedLifetime(lock) {} }
        model.highestEnd = max(model.highestEnd, try journal.endSequence())
        // As overland-sync's run does after its drains (`DestinationsRun`): the configured
        // destinations (those added by the workload included) are every reader, the floor
        // not consulted.
        let readers = Self.destinations.map { CursorName($0)! } + ((try? configuredExtras()) ?? [])
        coverage.segmentsRemoved += try journal.removeSentSegments(now: disk.now, readers: readers, onlyReaders: true).count
    }
}
