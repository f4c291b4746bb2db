/// A kind of movement the device reports in a Feature's `motion` list.
public enum Motion: String, Sendable, CaseIterable {
    /// In a car or another vehicle.
    case driving
    /// On foot, walking.
    case walking
    /// On foot, running.
    case running
    /// On a bicycle.
    case cycling
    /// Not moving.
    case stationary
}
