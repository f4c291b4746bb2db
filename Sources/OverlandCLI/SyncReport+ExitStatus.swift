import OverlandSync

extension SyncReport {
    /// The exit status of one destination's run (`SyncReportLines` says why).
    var exitStatus: ExitStatus {
        switch outcome {
        case .interrupted, .retryLater: .tryLater
        case .refused: .noPermission
        case .configurationError: .configuration
        case .journalError(let error): error.exitStatus == .noInput ? .ioError : error.exitStatus
        case .stateError: .ioError
        case .delivered, .maxTimeReached, .nothingToSend, .notDue, .backingOff, .sendingOff, .alreadyRunning: .ok
        }
    }
}
