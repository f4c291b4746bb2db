/// The extra Feature properties sent only while "include tracking stats" is on.
public struct TrackingStats: Sendable, Equatable {
    /// Whether location updates pause automatically (`pauses`).
    public var pauses: Bool
    /// The activity type the tracker is set to (`activity`): other, automotive_navigation,
    /// fitness, other_navigation or airborne.
    public var activity: String
    /// The accuracy asked of the receiver, in metres (`desired_accuracy`).
    public var desiredAccuracy: Int
    /// The distance, in metres, over which updates are deferred (`deferred`).
    public var deferred: Int
    /// Significant-change tracking: disabled, enabled or exclusive (`significant_change`).
    public var significantChange: String
    /// How many points arrived from the receiver in the same delivery as this one
    /// (`locations_in_payload`).
    public var locationsInPayload: Int

    /// Creates tracking stats.
    public init(
        pauses: Bool = false,
        activity: String = "other",
        desiredAccuracy: Int = 100,
        deferred: Int = 0,
        significantChange: String = "disabled",
        locationsInPayload: Int = 1
    ) {
        self.pauses = pauses
        self.activity = activity
        self.desiredAccuracy = desiredAccuracy
        self.deferred = deferred
        self.significantChange = significantChange
        self.locationsInPayload = locationsInPayload
    }
}
