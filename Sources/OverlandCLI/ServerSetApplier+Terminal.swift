import OverlandSync

extension ServerSetApplier {
    /// `overland-sync`'s: its lines on standard error, the sync's clock.
    init(settingsPath: String, verbose: Bool) {
        self.init(settingsPath: settingsPath, verbose: verbose, now: SyncClock.now, say: { Terminal.error("overland-sync: " + $0) })
    }
}
