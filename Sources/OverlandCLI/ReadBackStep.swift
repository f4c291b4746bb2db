import OverlandSettings
import OverlandSync

/// What reading back after a destination's drain (`ReadBackAfterDrain`, `SyncPass.run`) says on stderr.
enum ReadBackStep {
    /// Prints the lines about `readBack` (`ReadBackReport.lines`) and returns the status they
    /// call for: 65 when the receiver refused points (waiting will not fix it), 78 when the
    /// destination cannot be read back as configured, 75 when the pass could not finish, else 0.
    static func describe(_ readBack: ReadBackReport?, tool: String, verbose: Bool, destination: Destination) -> ExitStatus {
        var status = ExitStatus.ok
        for line in readBack?.lines(verbose: verbose, destination: destination) ?? [] {
            Terminal.error(tool + line.text)
            switch line.kind {
            case .refused: status = .dataError
            case .misconfigured: if ExitStatus.configuration.severity > status.severity { status = .configuration }
            case .unfinished: if status == .ok { status = .tryLater }
            case .note, .detail: break
            }
        }
        return status
    }
}
