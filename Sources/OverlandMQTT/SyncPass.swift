import OverlandJournal
import OverlandProtocol
import OverlandSettings
import OverlandSync

/// One journal sent to the destinations an `overland-sync` run selects: their senders, the
/// run over them all (`DestinationsRun`, read back after each drain) and its dry run. It
/// says nothing itself: the command prints what comes back.
public struct SyncPass: Sendable {
    /// The destinations this run sends to, in the order their reports come back.
    public let selected: [Destination]
    /// Every configured destination: their cursors are the readers retention keeps.
    public let all: [Destination]
    public let senders: [any DestinationSender]

    public init(selected: [Destination], all: [Destination], senders: DestinationSenders) {
        self.selected = selected
        self.all = all
        self.senders = senders.senders(for: selected)
    }

    /// Whether what is said names its destination: unless the default one is all there is.
    public var labelled: Bool { all.count > 1 || selected.first?.isDefault == false }

    /// Why every sender of an unlabelled run is refused: a configuration error, the first
    /// thing to fix (said before the journal's origin is checked). Nil when one can send.
    public var refusal: String? {
        guard !labelled, let refusal = senders.first?.refusal, senders.allSatisfy({ $0.refusal != nil }) else { return nil }
        return refusal
    }

    /// Sends from `journal` to every selected destination that is due, each read back after
    /// its drain as its destination's keys say (`ReadBackAfterDrain`).
    public func run(journal: Journal, keepSentSeconds: Int64, sendNow: Bool, onIssue: JournalIssueHandler?,
                    wallClock: @escaping @Sendable () -> Int64) async -> DestinationsRun.Outcome {
        var run = DestinationsRun(journal: journal, destinations: senders, readers: all.compactMap { CursorName($0.name) },
                                  keepSentSeconds: keepSentSeconds, wallClock: wallClock)
        run.receivers = all.carriedReceivers
        let byName = Dictionary(selected.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        run.afterDrain = { drained in
            guard let destination = byName[drained.destination.name.text] else { return drained.report }
            return await ReadBackAfterDrain.run(after: drained, destination: destination, wallClock: wallClock)
        }
        return await run.run(sendNow: sendNow, onIssue: onIssue)
    }

    /// What `--dry-run` says, in order.
    public enum DryRunLine: Sendable, Equatable {
        /// A line on standard output.
        case line(String)
        /// Text on standard output as it is (a request, ending with its newline).
        case text(String)
        /// A destination refused, on standard error: a configuration error.
        case refused(String)
    }

    /// `--dry-run`: the first request each selected destination would be sent from
    /// `journal` (at `path`), or why none, said through `say`; nothing changes.
    public func dryRun(journal: Journal, path: String, onIssue: JournalIssueHandler?, say: (DryRunLine) -> Void) throws {
        for sender in senders {
            let heading = labelled ? "\(sender.name.text): " : ""
            if let refusal = sender.refusal {
                say(.refused(heading + refusal))
                continue
            }
            switch try sender.preview(journal: journal, onIssue: onIssue) {
            case .nothingToSend:
                say(.line("\(heading)nothing to send from \(path)"))
            case .summary(let text):
                say(.line(heading + text))
            case .request(let request):
                if labelled { say(.line("# \(sender.name.text)")) }
                say(.text(request.displayText + "\n"))
            }
        }
    }
}
