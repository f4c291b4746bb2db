/// Receiver quirks the Feature encoder can accommodate.
public struct FeatureEncodingOptions: Sendable, Equatable {
    /// Write `speed` rounded (half away from zero) to a whole number, for receivers such as
    /// Wayfinder that drop a point whose speed has a fraction.
    public var integerSpeed: Bool
    /// Write `speed_accuracy` and `course_accuracy` rounded to whole numbers, for the same
    /// receivers, which store every accuracy as an integer.
    public var integerAccuracies: Bool

    /// Creates options; the defaults write what the protocol reference describes.
    public init(integerSpeed: Bool = false, integerAccuracies: Bool = false) {
        self.integerSpeed = integerSpeed
        self.integerAccuracies = integerAccuracies
    }

    /// The protocol as written: 2 decimals for speed and the fractional accuracies.
    public static let standard = FeatureEncodingOptions()

    /// Everything Wayfinder stores as an integer is written as one.
    public static let wayfinder = FeatureEncodingOptions(integerSpeed: true, integerAccuracies: true)
}
