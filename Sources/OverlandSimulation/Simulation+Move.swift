import OverlandJournal

/// `journal move` in the workload: the real move (journal-format.md section 12) from the
/// journal into the stick's journal (`stickPath`), which another machine syncs.
extension Simulation {
    /// Opens the stick's journal (recovery by the real code) once a move created it.
    func openTarget() throws(JournalError) {
        guard disk.kind(Self.stickPath + "/manifest.json") == .file else { return }
        target = try Journal(path: Self.stickPath, fileSystem: disk)
    }

    /// Moves the sealed, unsent segments to the stick, as `overland journal move --to`
    /// does (`--seal`: the logger stopped for it, then started again).
    func move(seal: Bool) -> SimulationFailure? {
        guard let journal else { return SimulationFailure(kind: "error", message: "no journal open") }
        do {
            try noteAcknowledged(journal)
            model.highestEnd = max(model.highestEnd, try journal.endSequence())
            // The move opens the stick's journal itself (and locks it): the other machine's
            // handle is closed meanwhile, the logger's too when it seals (`--seal`).
            target = nil
            if seal {
                // The logger stops for it: its last commit (failing, it exits 74 and what
                // waited is lost, as reported).
                _ = try? appender?.commit(wallClock: disk.now)
                settlePending(faulted: false)
                model.pending = []
                appender = nil
            }
            var failure: (any Error)?
            do { try journal.move(to: Self.stickPath, sealFirst: seal, now: disk.now) } catch { failure = error }
            // The logger starts again, whatever the move did.
            if seal { appender = try makeAppender(journal) }
            if let failure { throw failure }
            try openTarget()
            let (stick, problem) = try Invariants.stick(target, allowedTwice: model.writtenTwice)
            return (problem ?? Invariants.observe(stick, model: &model)).map { SimulationFailure(kind: $0.kind, message: $0.message) }
        } catch {
            return SimulationFailure(kind: "error", message: "\(error)")
        }
    }

    /// The points below the source's floor (sent to every destination) that are not on the
    /// stick: a move must never carry them there (section 12: what moves starts at the floor).
    func noteAcknowledged(_ journal: Journal) throws(JournalError) {
        let floor = try journal.cursor()
        let reader = try journal.records(from: 0)
        while let record = try reader.next(), record.sequence < floor {
            if let id = Invariants.recordID(record.line), !model.targetIDs.contains(id) { model.acknowledged.insert(id) }
        }
    }
}
