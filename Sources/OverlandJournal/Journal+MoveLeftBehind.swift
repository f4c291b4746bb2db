extension Journal {
    /// The unsent records a move that took nothing left here: they wait in the active
    /// segment, which only a move with `sealFirst` takes. 0 when the move took a segment,
    /// finished an interrupted one, or sealed first. `journal move` does not call it done,
    /// so that no one wipes the journal believing it carried.
    public func unsentLeftBehind(by report: JournalMoveReport, sealFirst: Bool) throws(JournalError) -> UInt64 {
        guard report.segments == 0, !report.resumed, !sealFirst else { return 0 }
        return try backlog()
    }
}
