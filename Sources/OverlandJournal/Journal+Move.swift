#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJSON

/// Moving sealed, unsent segments into another journal, typically on a USB stick
/// (`overland journal move`, journal-format.md section 12).
///
/// The target is a journal of its own (its own id, manifest with `moved_from`, cursor).
/// Each moved member is re-stamped with the target's journal id and sequence numbers; its
/// deflate data and CRC-32 stay as they are. Segments move one at a time, oldest first:
///
/// 1. the plan goes to the source's `state/move.json` (the intent); while it exists the
///    source must not be synced (`pendingMove()`);
/// 2. the segment is written to the target as `.tmp-NAME`, fsynced, renamed and the
///    directory fsynced, then read back and checked against what was meant;
/// 3. the source's cursors move past the segment's records (each named cursor, then the
///    floor), then the source file is deleted;
/// 4. after the last segment, the intent is removed.
///
/// A run that finds an intent finishes it first: a segment found complete in the target is
/// not written again. Fault points for the crash tests: `move.after-target`,
/// `move.after-intent`, `move.after-write` (temporary file synced, not renamed),
/// `move.after-copy`, `move.after-verify`, `move.after-reader-cursor` (after each named
/// cursor), `move.after-cursor` (after the floor), `move.after-delete` (these once per
/// segment or cursor: `NAME:N` for the Nth).
///
/// The move's files, one job each: the plan (`Journal+MovePlan`), the intent
/// (`JournalMoveIntent`), the target (`Journal+MoveTarget`), copying a segment there
/// (`MovedSegment`, `Journal+MoveCopy`), giving it up in the source (`Journal+MoveCursors`).
extension Journal {
    /// Moves this journal's sealed, unsent segments into the journal at `targetPath`
    /// (created when missing), finishing an interrupted move first. With `sealFirst`, the
    /// active segment is sealed before, so that it moves too. `receivers`: how each reader
    /// names its receiver (`CarriedPlace.receiver`); the records a reader had acknowledged
    /// go with their place into the target's `state/carried.json`.
    @discardableResult
    public func move(to targetPath: String, sealFirst: Bool = false, now: Int64 = Journal.currentTime(),
                     receivers: [CursorName: String] = [:],
                     onIssue: JournalIssueHandler? = nil) throws(JournalMoveError) -> JournalMoveReport {
        let cursorLock = try acquireCursorLock()
        defer { withExtendedLifetime(cursorLock) {} }

        var report: JournalMoveReport
        let target: Journal
        let pending = try wrap { () throws(JournalError) in try pendingMove() }
        if let pending {
            target = try openPendingTarget(pending, at: targetPath)
            report = JournalMoveReport(targetID: target.id, targetPath: targetPath)
            report.resumed = true
        } else {
            let opened = try openMoveTarget(targetPath, now: now)
            target = opened.journal
            report = JournalMoveReport(targetID: target.id, targetPath: targetPath)
            report.targetCreated = opened.created
        }
        FaultPoint.reach("move.after-target")
        // Held to the end: nothing else writes into the target meanwhile (another move).
        let targetLock = try wrap { () throws(JournalError) in try target.exclusiveLock() }
        defer { targetLock?.unlock() }
        if var intent = pending {
            if intent.targetPath != targetPath {
                intent.targetPath = targetPath
                try wrap { () throws(JournalError) in try writeState(Self.moveIntentStateName, intent.encoded) }
            }
            try finishMove(intent, into: target, receivers: receivers, report: &report)
        }
        if sealFirst {
            try wrap { () throws(JournalError) in try JournalAppender(journal: self, onIssue: onIssue).sealActive() }
        }
        while true {
            let plan = try wrap { () throws(JournalError) in try planMove(into: target) }
            report.stoppedAt = plan.stoppedAt
            guard !plan.intent.segments.isEmpty else { break }
            try wrap { () throws(JournalError) in
                // Never write an intent that could not be read back: it would stop every
                // sync and move of this journal.
                let encoded = plan.intent.encoded
                _ = try JournalMoveIntent(parsing: encoded, path: statePath(of: Self.moveIntentStateName))
                try writeState(Self.moveIntentStateName, encoded)
            }
            FaultPoint.reach("move.after-intent")
            try finishMove(plan.intent, into: target, receivers: receivers, report: &report)
            if !plan.truncated { break }
        }
        return report
    }

    /// Ends an interrupted move without finishing it: a segment found complete in the
    /// target counts as moved (its source copy is removed; one found there in part is
    /// completed first), the others stay in this journal, and the intent goes. The target must be reachable unless `targetLost`: then every
    /// remaining segment stays here, and if the lost target turns up and is synced, the
    /// records of at most the one segment that was in flight are uploaded twice.
    @discardableResult
    public func abortMove(targetPath: String?, targetLost: Bool = false,
                          receivers: [CursorName: String] = [:]) throws(JournalMoveError) -> JournalMoveReport {
        let cursorLock = try acquireCursorLock()
        defer { withExtendedLifetime(cursorLock) {} }
        let pending: JournalMoveIntent?
        do {
            pending = try pendingMove()
        } catch .untrusted {
            // An intent that cannot be read (damaged, or written by a hostile tool) must not
            // lock the journal: set it aside. Every segment it could name is still here (a
            // source copy goes only after the cursor passed it); the target, if synced, may
            // send the records of at most the segment that was in flight again.
            var report = JournalMoveReport(targetID: id, targetPath: targetPath ?? "")
            report.intentSetAside = try wrap { () throws(JournalError) in try setAsideMoveIntent() }
            return report
        } catch {
            throw .journal(error)
        }
        guard let intent = pending else { throw .noPendingMove }
        let path = targetPath ?? intent.targetPath
        var report = JournalMoveReport(targetID: intent.targetID, targetPath: path)
        if fs.kind(path + "/manifest.json") == .file {
            // With --target-lost, a target that cannot be used (another journal at that
            // path, a hostile or damaged one, an I/O error) is taken as lost: the intent
            // goes anyway, so that nothing there can lock this journal.
            do throws(JournalMoveError) {
                let target = try openPendingTarget(intent, at: path)
                try wrap { () throws(JournalError) in
                    let lock = try target.exclusiveLock()
                    defer { lock?.unlock() }
                    var cursor = try self.cursor()
                    for segment in intent.segments {
                        if cursor >= segment.end {
                            try removeMovedSource(segment.name)
                            continue
                        }
                        let built = try buildMovedSegment(segment, targetID: target.id)
                        switch try target.state(of: built) {
                        case .complete:
                            try target.makeMovedSegmentsDurable()
                        case .ours:
                            // Part of it is in the target, where it may be synced: complete it
                            // rather than leave records in both journals.
                            do throws(MoveWriteError) {
                                try target.writeMovedSegment(built)
                            } catch {
                                throw error.journalError
                            }
                            try target.verifyMovedSegment(built)
                        case .absent, .foreign:
                            return
                        }
                        try carryPlaces(of: segment, into: target, receivers: receivers, report: &report)
                        try passCursors(to: segment.end)
                        cursor = segment.end
                        try removeMovedSource(segment.name)
                        report.add(built)
                    }
                }
            } catch {
                if !targetLost { throw error }
            }
        } else if !targetLost {
            throw .targetMissing(path: path, intent: intent)
        }
        try wrap { () throws(JournalError) in try removeState(Self.moveIntentStateName) }
        return report
    }

    /// Renames an unreadable move intent into `damaged/` (kept for inspection, never read
    /// again) and returns where it went.
    func setAsideMoveIntent() throws(JournalError) -> String {
        try setAsideState(Self.moveIntentStateName, label: "unreadable")
    }

    /// The source's cursor lock: no sync reads or moves a cursor while a move runs.
    func acquireCursorLock() throws(JournalMoveError) -> JournalLock {
        let acquired = try wrap { () throws(JournalError) in try tryLockCursors() }
        guard let acquired else { throw .busy(path: path) }
        return acquired
    }

    // MARK: - Moving

    /// Carries out an intent, segment after segment (see the type's description).
    func finishMove(_ start: JournalMoveIntent, into target: Journal, receivers: [CursorName: String],
                    report: inout JournalMoveReport) throws(JournalMoveError) {
        var intent = start
        try wrap { () throws(JournalError) in try target.removeTemporarySegments() }
        var cursor = try wrap { () throws(JournalError) in try self.cursor() }
        var index = 0
        while index < intent.segments.count {
            let segment = intent.segments[index]
            if cursor >= segment.end {
                // Moved before an interruption; only the source file may be left.
                try wrap { () throws(JournalError) in try removeMovedSource(segment.name) }
                index += 1
                continue
            }
            var built = try wrap { () throws(JournalError) in try buildMovedSegment(segment, targetID: target.id) }
            var state = try wrap { () throws(JournalError) in try target.state(of: built) }
            switch state {
            case .absent, .foreign:
                // Another move may have written at or past the planned numbers since this
                // intent was made: renumber this segment and the rest after them. (Only the
                // segment in flight can be in the target; it is found whole or in part.)
                var next = try wrap { () throws(JournalError) in try target.nextMoveSequence() }
                if case .foreign = state { next = max(next, segment.targetFirst + 1) }
                if next > segment.targetFirst {
                    intent.renumber(from: index, at: next)
                    try wrap { () throws(JournalError) in try writeState(Self.moveIntentStateName, intent.encoded) }
                    built = try wrap { () throws(JournalError) in try buildMovedSegment(intent.segments[index], targetID: target.id) }
                    state = try wrap { () throws(JournalError) in try target.state(of: built) }
                }
            case .complete, .ours:
                break
            }
            switch state {
            case .complete:
                // Found whole in the target (written before an interruption): not written again.
                break
            case .absent, .ours:
                do {
                    try target.writeMovedSegment(built)
                } catch {
                    if case .beforeRename(let cause) = error, case .absent = state {
                        // Nothing of this segment reached the target: stop cleanly, every
                        // segment before it moved and every one after stays in the source.
                        try wrap { () throws(JournalError) in try removeState(Self.moveIntentStateName) }
                        report.remaining = intent.segments[index...].reduce(0) { $0 + $1.records }
                        throw .targetFailed(cause, report)
                    }
                    throw .journal(error.journalError)
                }
            case .foreign:
                throw .journal(.untrusted(path: target.segmentPath(built.name),
                                          reason: "holds other records where this move expected its own"))
            }
            if case .complete = state {
                try wrap { () throws(JournalError) in try target.makeMovedSegmentsDurable() }
            } else {
                try wrap { () throws(JournalError) in try target.verifyMovedSegment(built) }
            }
            FaultPoint.reach("move.after-verify")
            try wrap { () throws(JournalError) in
                try carryPlaces(of: intent.segments[index], into: target, receivers: receivers, report: &report)
                try passCursors(to: segment.end)
            }
            cursor = segment.end
            FaultPoint.reach("move.after-cursor")
            try wrap { () throws(JournalError) in try removeMovedSource(segment.name) }
            FaultPoint.reach("move.after-delete")
            report.add(built)
            index += 1
        }
        try wrap { () throws(JournalError) in try removeState(Self.moveIntentStateName) }
    }

}

/// Runs a journal operation inside a move, wrapping its error.
func wrap<T>(_ body: () throws(JournalError) -> T) throws(JournalMoveError) -> T {
    do {
        return try body()
    } catch {
        throw .journal(error)
    }
}
