#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON
import OverlandJournal

/// `state/input.json`: written by a running `overland-log` while its live input has given
/// no fix for a while (`{"input":NAME,"no_fix_since":UNIX,"pid":PID}`), removed when fixes
/// come back and when the logger exits; `overland status` shows it while that process runs.
public enum InputState {
    public static let name = "input.json"

    public struct NoFix: Sendable, Equatable {
        public var input: String
        public var since: Int64
        public var pid: Int32

        public init(input: String, since: Int64, pid: Int32) {
            self.input = input
            self.since = since
            self.pid = pid
        }
    }

    public static func write(_ state: NoFix, in journal: Journal) {
        var writer = JSONWriter()
        writer.appendRaw(#"{"input":"#)
        writer.appendString(state.input)
        writer.appendRaw(#","no_fix_since":"#)
        writer.appendInteger(state.since)
        writer.appendRaw(#","pid":"#)
        writer.appendInteger(Int64(state.pid))
        writer.appendRaw("}\n")
        try? journal.writeState(name, writer.bytes)
    }

    public static func clear(in journal: Journal) {
        if (try? journal.readState(name)) != nil { try? journal.removeState(name) }
    }

    /// The no-fix state of a logger still running, if any.
    public static func read(in journal: Journal) -> NoFix? {
        guard let bytes = try? journal.readState(name), let value = try? JSONParser.parse(bytes[...]),
              let input = value["input"]?.string, let since = value["no_fix_since"]?.double,
              let pid = value["pid"]?.double, pid > 0, pid < Double(Int32.max) else { return nil }
        let state = NoFix(input: input, since: Int64(since), pid: Int32(pid))
        // A logger killed with kill -9 leaves the file: only a running one counts.
        guard kill(state.pid, 0) == 0 || errno == EPERM else { return nil }
        return state
    }
}
