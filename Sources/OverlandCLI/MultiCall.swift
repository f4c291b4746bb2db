import Dispatch

/// The three commands in one executable, chosen by the name it is run as (argv[0]'s last
/// path component), as BusyBox does: installed once as `overland`, with `overland-log` and
/// `overland-sync` as symbolic links to it, they share one copy of the Swift runtime and
/// libraries instead of carrying three.
public enum MultiCall {
    /// The command a program name selects.
    public enum Command: Equatable, Sendable {
        case log, sync, control
    }

    /// `overland-log` and `overland-sync` (also with a directory before them) select those
    /// commands; any other name, `overland` among them, the control command.
    public static func command(invokedAs name: String) -> Command {
        let base = name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? name
        switch base {
        case "overland-log": return .log
        case "overland-sync": return .sync
        default: return .control
        }
    }

    /// Runs the command selected by this process's name, and exits.
    ///
    /// Synchronous on purpose: the logger blocks SIGTERM, SIGINT and SIGHUP on the main
    /// thread before any other thread exists and takes them with sigtimedwait; an async
    /// entry point would start the concurrency runtime's threads first, and a SIGTERM
    /// delivered to one of them would kill the logger before its commit. Only the sync
    /// command is async: it runs on the global executor while this thread waits.
    public static func main() {
        switch command(invokedAs: CommandLine.arguments.first ?? "overland") {
        case .log: LogCommand.main()
        case .control: OverlandCommand.main()
        case .sync: runToCompletion { await SyncCommand.main() }
        }
    }

    /// Runs `body` on the global executor while this thread waits, and returns its result:
    /// the one bridge from a synchronous command to async work.
    @discardableResult
    static func runToCompletion<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) -> Result {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<Result>()
        Task.detached {
            box.value = await body()
            done.signal()
        }
        done.wait()
        return box.value!
    }

    private final class ResultBox<Value>: @unchecked Sendable {
        var value: Value?
    }
}
