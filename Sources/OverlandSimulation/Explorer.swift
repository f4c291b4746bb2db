/// Runs the workload of seed after seed, each on a fresh simulated disk; a failing seed's
/// steps are shrunk to a minimal list that still fails.
public struct Explorer: Sendable {
    public let ignores: SimulatedDisk.Ignores

    public init(ignores: SimulatedDisk.Ignores = .nothing) { self.ignores = ignores }

    /// What one seed did.
    public struct Outcome: Sendable {
        public let seed: UInt64
        public let steps: [Step]
        public let crashStates: Int
        public let coverage: Coverage
        public let violation: Violation?
        /// Whether the stick followed FAT's model (`stickOnFAT(seed:)`).
        public let stickOnFAT: Bool
    }

    /// The stick is on FAT for every other seed, on the POSIX model for the rest.
    public static func stickOnFAT(seed: UInt64) -> Bool { seed % 2 == 0 }

    /// Runs the workload of `seed`.
    public func run(seed: UInt64) async -> Outcome {
        let steps = Step.workload(seed: seed)
        let fat = Self.stickOnFAT(seed: seed)
        let simulation = Simulation(ignores: ignores, stickOnFAT: fat)
        let violation = await simulation.run(steps)
        return Outcome(seed: seed, steps: steps, crashStates: simulation.crashStates,
                       coverage: simulation.coverage, violation: violation, stickOnFAT: fat)
    }

    /// The violation `steps` end in, if any.
    public func replay(_ steps: [Step], stickOnFAT: Bool = false) async -> Violation? {
        await Simulation(ignores: ignores, stickOnFAT: stickOnFAT).run(steps)
    }

    /// A shorter list of steps that still breaks the same invariant, found by removing
    /// chunks of steps, halving the chunk size down to one step, while the run still fails.
    public func shrink(_ steps: [Step], stickOnFAT: Bool = false) async -> (steps: [Step], violation: Violation)? {
        guard var violation = await replay(steps, stickOnFAT: stickOnFAT) else { return nil }
        var current = steps
        var chunk = max(1, current.count / 2)
        while chunk >= 1 {
            var start = current.count - chunk
            while start >= 0 {
                var candidate = current
                candidate.removeSubrange(start..<min(current.count, start + chunk))
                if let failure = await replay(candidate, stickOnFAT: stickOnFAT), failure.kind == violation.kind {
                    current = candidate
                    violation = failure
                }
                start -= chunk
            }
            if chunk == 1 { break }
            chunk /= 2
        }
        return (current, violation)
    }
}
