/// The dimension of a fix: latitude and longitude only, or with altitude.
public enum FixMode: Int, Sendable, Equatable, Hashable, CaseIterable {
    /// A two-dimensional fix: latitude and longitude, no trustworthy altitude.
    case twoD = 2
    /// A three-dimensional fix: latitude, longitude and altitude.
    case threeD = 3
}
