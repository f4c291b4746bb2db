#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The step of a move that gives a moved segment up: the source's cursors pass it, then
/// its source file goes (journal-format.md section 12, step 3 and 4).
extension Journal {
    /// Moves every cursor of this journal past a moved segment (`end`: one past its last
    /// record), so that nothing of it is sent from here again: each named cursor below
    /// `end`, in name order, then the floor (their lowest). With no named cursor, the floor
    /// is the default reader's cursor and is the only one written. A crash between two of these writes
    /// leaves the floor below `end`: the next run finds the segment complete in the target
    /// and writes the rest (journal-format.md section 12).
    ///
    /// Each decision goes by the cursor files, never by a progress record: a progress record
    /// is not fsynced, so a reader found past `end` only there would keep a cursor file below
    /// it, the floor would stay below it, and the source file deleted next would be one the
    /// next run still needs (issue 26, seed 709559427). A reader whose progress record is past
    /// `end` gets its cursor file written there. The floor is checked at `end` before this
    /// returns: the source file goes only after that.
    func passCursors(to end: UInt64) throws(JournalError) {
        let names = try cursorNames()
        for name in names {
            guard try durableCursor(for: name) < end else { continue }
            try writeNamedCursor(name, max(end, try cursor(for: name)))
            FaultPoint.reach("move.after-reader-cursor")
        }
        if names.isEmpty {
            if try cursor() < end { try writingCursor(of: .default, at: end) { () throws(JournalError) in try writeFloor(end) } }
        } else {
            try updateFloor()
        }
        let floor = try cursor()
        guard floor >= end else {
            throw .io(operation: "cannot pass the cursors", path: cursorPath,
                      reason: "the floor stays at \(floor), below the moved segment's end \(end)", code: EIO)
        }
    }

    /// Carries into the target the places of the readers that had acknowledged some of a
    /// moved segment's records (section 12), before the source's cursors pass them: for a
    /// reader whose receiver `receivers` names, the run of target records it had; the
    /// others (cursor files of readers not named) are counted in `report.notCarried`: their
    /// receivers get those records again from the target. Written again when a resumed
    /// move finds the segment done: joining a run to itself changes nothing.
    func carryPlaces(of segment: JournalMoveIntent.Segment, into target: Journal, receivers: [CursorName: String],
                     report: inout JournalMoveReport) throws(JournalError) {
        var readers = Set(receivers.keys)
        let named = try cursorNames()
        readers.formUnion(named.isEmpty ? [.default] : named)
        var added: [CarriedPlace] = []
        for name in readers.sorted() {
            guard case .valid(let place) = try readCursor(for: name), place > segment.from else { continue }
            let acknowledged = min(place, segment.end) - segment.from
            if let receiver = receivers[name] {
                added.append(CarriedPlace(receiver: receiver, range: segment.targetFirst..<segment.targetFirst + acknowledged))
                report.carried[name, default: 0] += acknowledged
            } else {
                report.notCarried[name, default: 0] += acknowledged
            }
        }
        try target.addCarriedPlaces(added)
    }

    /// Throws when a cursor cannot be read: a move would have to pass a reader whose place
    /// it does not know. Checked before a move plans anything.
    func requireReadableCursors() throws(JournalError) {
        _ = try cursor()
        for name in try cursorNames() { _ = try cursor(for: name) }
    }

    /// Deletes a source segment whose records the cursor has passed, durably.
    func removeMovedSource(_ name: SegmentName) throws(JournalError) {
        let file = segmentPath(name)
        guard fs.kind(file) != .missing else { return }
        try fs.remove(file)
        try fs.syncDirectory(segmentsPath)
    }
}
