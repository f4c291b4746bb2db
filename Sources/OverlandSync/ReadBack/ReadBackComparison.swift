import OverlandJSON
import OverlandJournal
import OverlandProtocol

extension ReadBackPass {
    /// One pass's comparisons: each settled chunk read back once, what is missing sent
    /// again (to be read back once that resend has settled), until every point is stored or
    /// refused.
    struct Comparison {
        let pass: ReadBackPass
        let now: Int64
        var session: Session
        var resendBudget: Int
        /// When points were last sent again before this pass: what this pass sends again
        /// itself does not hold back the chunks sent again earlier.
        let resentBefore: Int64?

        init(pass: ReadBackPass, now: Int64, state: SyncState) {
            self.pass = pass
            self.now = now
            resentBefore = state.resentAt
            session = Session(reader: pass.reader, transport: pass.transport,
                              timeout: .milliseconds(Int64(pass.configuration.requestTimeout * 1000)), answerLimit: pass.answerLimit)
            resendBudget = max(0, min(pass.resendLimit, SyncState.maximumResendEntries - state.resends.count))
        }

        /// How a chunk's comparison ended.
        enum Outcome {
            /// Every point is stored or refused: the mark may pass the chunk.
            case settled
            /// Points of the chunk were sent again now, or earlier and not settled yet: it
            /// is read back by a later run; the mark stays before it, the following chunks
            /// are compared.
            case waiting
            /// The resend budget ran out: the pass stops, the mark before the chunk.
            case stopped
        }

        /// Compares `chunk` with the receiver's store, sending again what is missing
        /// (`Outcome`). Without `countingRefusals` (the chunk stays to be compared again),
        /// what is refused is neither counted nor recorded.
        mutating func compare(_ chunk: [Sent], state: inout SyncState, report: inout ReadBackReport,
                              refusal: inout RefusalTally, countingRefusals: Bool = true) async throws -> Outcome {
            if chunk.contains(where: { state.resends[$0.sequence] != nil }), pass.isSettling(since: resentBefore, now: now) {
                report.waiting += chunk.count
                return .waiting
            }
            report.checked += chunk.count
            let held = try await read(covering: chunk)
            // What this chunk finds counts once it is settled: a chunk cut short is
            // compared again by a later run, and must not be counted twice.
            var found = RefusalTally()
            var refused: [UInt64] = []
            var again: [Sent] = []
            for sent in chunk {
                let device = pass.configuration.filedDevice(of: sent.point)
                if held.holds(sent.point, device: device) {
                    report.stored += 1
                    found.note(stored: sent.point, device: device)
                } else if state.resends[sent.sequence, default: 0] >= ReadBackPass.resendsBeforeRefusal {
                    found.note(refused: sent.point, in: held, device: device)
                    refused.append(sent.sequence)
                } else {
                    again.append(sent)
                }
            }
            guard again.isEmpty else { return try await resend(again, state: &state, report: &report) }
            guard countingRefusals else { return .settled }
            refusal.merge(found)
            state.refusedRecords += UInt64(refused.count)
            for sequence in refused { state.refused.insert(sequence) }
            if let firstRefused = refused.min() {
                state.refusedFrom = min(state.refusedFrom ?? .max, firstRefused)
                state.refusedAgainst = pass.sendingFingerprint
            }
            return .settled
        }

        /// Sends `again` once more (`ReadBackResender`), their counts and the time written
        /// to the state file first: a kill between the resend and its read-back counts it,
        /// and a later run reads the range once it has settled.
        private mutating func resend(_ again: [Sent], state: inout SyncState, report: inout ReadBackReport) async throws -> Outcome {
            guard again.count <= resendBudget else {
                report.unfinished = "\(Plural.count(again.count, "point")) to send again after the \(report.resent) of this run: the next run continues"
                return .stopped
            }
            for sent in again { state.resends[sent.sequence, default: 0] += 1 }
            state.resentAt = now
            try state.save(in: pass.journal, as: SyncState.fileName(forDestination: pass.cursorName.text))
            try await pass.resender.resend(again.map(\.line), timeout: session.timeout)
            // Crash tests kill the process here: sent again, not yet read back.
            FaultPoint.reach("readback.after-resend")
            resendBudget -= again.count
            report.resent += again.count
            return .waiting
        }

        /// The receiver's points for the time range of `points`.
        private mutating func read(covering points: [Sent]) async throws -> HeldPoints {
            var from = Int64.max
            var through = Int64.min
            for sent in points {
                from = min(from, sent.point.timestamp)
                through = max(through, sent.point.timestamp)
            }
            let held = try await session.read(from: from, through: through, now: now)
            return HeldPoints(held, keepsFixTime: session.reader.keepsFixTime)
        }
    }
}

extension SyncConfiguration {
    /// The device the receiver files `point` under: the journal line's own device id where
    /// the line is sent as it is (the Overland protocol: Compass, Dawarich), the
    /// destination's device id where the receiver's request names it (OwnTracks, Traccar,
    /// MQTT topics). The one rule read-back, resends and the audit use.
    public func filedDevice(of point: LocationFeature) -> String {
        wireProtocol == .overland && !point.deviceID.isEmpty ? point.deviceID : deviceID
    }
}
