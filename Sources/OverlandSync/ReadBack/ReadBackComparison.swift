import OverlandJSON
import OverlandJournal
import OverlandProtocol

extension ReadBackPass {
    /// One pass's comparisons: each chunk read back, what is missing sent again, until
    /// every point is stored or refused.
    struct Comparison {
        let pass: ReadBackPass
        var session: Session
        var resendBudget: Int

        init(pass: ReadBackPass) {
            self.pass = pass
            session = Session(reader: pass.reader, transport: pass.transport,
                              timeout: .milliseconds(Int64(pass.configuration.requestTimeout * 1000)), answerLimit: pass.answerLimit)
            resendBudget = pass.resendLimit
        }

        private var deviceID: String { pass.configuration.deviceID }

        /// How a chunk's comparison ended.
        enum Outcome {
            /// Every point is stored or refused: the mark may pass the chunk.
            case settled
            /// What was missing was sent again through a broker, to be read back by the
            /// next run (`ReadBackResender.readsBackAtOnce`): the mark stays before the
            /// chunk, and the following chunks are compared.
            case resentForNextRun
            /// The resend budget ran out: the pass stops, the mark before the chunk.
            case stopped
        }

        /// Compares `chunk` with the receiver's store, resending what is missing until each
        /// point is stored or refused (`Outcome`). Without `countingRefusals` (the chunk stays
        /// to be compared again), what is refused is neither counted nor recorded.
        mutating func compare(_ chunk: [Sent], state: inout SyncState, report: inout ReadBackReport,
                              refusal: inout RefusalTally, countingRefusals: Bool = true) async throws -> Outcome {
            report.checked += chunk.count
            // What this chunk finds counts once it is settled: a chunk cut short is
            // compared again by the next run, and must not be counted twice.
            var found = RefusalTally()
            var refused: UInt64 = 0
            var firstRefused = UInt64.max
            var pending = chunk
            while true {
                let held = try await read(covering: pending)
                var missing: [Sent] = []
                for sent in pending {
                    if held.holds(sent.point, deviceID: deviceID) {
                        report.stored += 1
                        found.note(stored: sent.point, deviceID: deviceID)
                    } else {
                        missing.append(sent)
                    }
                }
                let limit = ReadBackPass.resendsBeforeRefusal
                for sent in missing where state.resends[sent.sequence, default: 0] >= limit {
                    found.note(refused: sent.point, in: held, deviceID: deviceID)
                    refused += 1
                    firstRefused = min(firstRefused, sent.sequence)
                }
                let again = missing.filter { state.resends[$0.sequence, default: 0] < limit }
                if again.isEmpty {
                    guard countingRefusals else { return .settled }
                    refusal.merge(found)
                    state.refusedRecords += refused
                    if refused > 0 {
                        state.refusedFrom = min(state.refusedFrom ?? .max, firstRefused)
                        state.refusedAgainst = pass.sendingFingerprint
                    }
                    return .settled
                }
                guard again.count <= resendBudget else {
                    report.unfinished = "\(Plural.count(again.count, "point")) to send again after the \(pass.resendLimit) of this run: the next run continues"
                    return .stopped
                }
                // Written before the resend: a kill between the resend and its read-back
                // counts it, and the next run reads the range again.
                for sent in again { state.resends[sent.sequence, default: 0] += 1 }
                try state.save(in: pass.journal, as: SyncState.fileName(forDestination: pass.cursorName.text))
                try await resend(again)
                // Crash tests kill the process here: sent again, not yet read back.
                FaultPoint.reach("readback.after-resend")
                resendBudget -= again.count
                report.resent += again.count
                if !pass.resender.readsBackAtOnce {
                    report.resentForNextRun += again.count
                    return .resentForNextRun
                }
                pending = again
            }
        }

        /// The receiver's points for the time range of `points`.
        private mutating func read(covering points: [Sent]) async throws -> HeldPoints {
            var from = Int64.max
            var through = Int64.min
            for sent in points {
                from = min(from, sent.point.timestamp)
                through = max(through, sent.point.timestamp)
            }
            let held = try await session.read(from: from, through: through, now: pass.wallClock())
            return HeldPoints(held, keepsFixTime: session.reader.keepsFixTime)
        }

        /// Sends `points` again, as the destination sends (`ReadBackResender`); an attempt
        /// not acknowledged is an error (the points stay unsettled for the next run).
        private func resend(_ points: [Sent]) async throws {
            try await pass.resender.resend(points.map(\.line), timeout: session.timeout)
        }
    }
}
