#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// Named crash points for the crash tests: with `OVERLAND_FAULT_POINT=NAME` (or `NAME:N` for
/// the Nth time it is reached) the process kills itself with SIGKILL at that point, as power
/// loss or `kill -9` would, between two steps that must each be durable. `NAME:N:stop`
/// stops it there instead (SIGSTOP, until a SIGCONT): a test then acts on a process paused
/// at a known step, not wherever a poll happened to find it.
///
/// Points: `segment.after-write` (a new segment's temporary file is written and synced,
/// not yet renamed), `segment.after-rename`, `append.after-write` (a member is written, not yet synced),
/// `append.after-sync`, `seal.after-write` (the sealed copy is synced, not yet renamed; or,
/// sealing a bulk import in place, the seal member is written, not yet synced),
/// `seal.after-sync` (in place), `seal.after-rename`, `cursor.after-write`, `cursor.after-rename` (before the directory
/// sync; `cursor.json`), `cursors.after-write`, `cursors.after-rename` (a named cursor),
/// `cursors.after-named` (a named cursor written, the floor not yet), and the move's
/// (`Journal+Move.swift`). Other modules reach points of their own, named where they are.
public enum FaultPoint {
    private struct Armed: Sendable {
        let name: String
        let nth: Int
        let signal: Int32
    }

    private static let armed: Armed? = {
        guard let raw = getenv("OVERLAND_FAULT_POINT").map({ String(cString: $0) }), !raw.isEmpty else { return nil }
        let parts = raw.split(separator: ":", maxSplits: 2)
        let nth = parts.count >= 2 ? Int(parts[1]) ?? 1 : 1
        let signal = parts.count == 3 && parts[2] == "stop" ? SIGSTOP : SIGKILL
        return Armed(name: String(parts[0]), nth: max(nth, 1), signal: signal)
    }()

    /// Atomic: a bulk import reaches the append points on its commit thread while its main
    /// thread may reach others, and a lost count would fire at the wrong time or never.
    private static let hits = Atomic<Int>(0)

    /// Kills (or stops) the process if this point is armed and reached for the configured time.
    public static func reach(_ name: String) {
        guard let armed, armed.name == name else { return }
        if hits.add(1, ordering: .relaxed).newValue == armed.nth { kill(getpid(), armed.signal) }
    }
}
