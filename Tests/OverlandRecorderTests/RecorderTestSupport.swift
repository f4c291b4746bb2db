import TestSupport
import Foundation
import OverlandInput
import OverlandProtocol
import Testing

@testable import OverlandRecorder

/// 2020-02-14T18:05:42Z, the first fix of the drive sample.
let baseTime: Int64 = 1_581_703_542

/// A 3D fix `seconds` after `baseTime`, `north` metres north of 45.490975 N, 77.696315 W.
func makeFix(
    _ seconds: Int64 = 0, nanoseconds: Int32 = 0, north: Double = 0, altitude: Double? = 311,
    speed: Double? = 25, course: Double? = 271, horizontalAccuracy: Double? = 5, verticalAccuracy: Double? = 8,
    speedAccuracy: Double? = nil, courseAccuracy: Double? = nil
) -> Fix {
    Fix(time: baseTime + seconds, nanoseconds: nanoseconds,
        latitude: 45.490975 + north / metresPerDegree, longitude: -77.696315,
        altitude: altitude, speed: speed, course: course, mode: altitude == nil ? .twoD : .threeD,
        horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
        speedAccuracy: speedAccuracy, courseAccuracy: courseAccuracy)
}

/// Metres per degree of latitude on the sphere `Geodesy` uses.
let metresPerDegree = Geodesy.earthRadius * .pi / 180

/// A recorder under `configure`d settings, fed `fixes`; returns the points' timestamps
/// (relative to `baseTime`) and the recorder, for its statistics.
func record(_ fixes: [Fix], configure: (inout RecorderConfiguration) -> Void = { _ in })
    -> (seconds: [Int64], recorder: Recorder)
{
    var configuration = RecorderConfiguration()
    configure(&configuration)
    var recorder = Recorder(configuration: configuration)
    var seconds: [Int64] = []
    for fix in fixes {
        if let point = recorder.point(for: fix, device: .none) { seconds.append(point.timestamp - baseTime) }
    }
    return (seconds, recorder)
}

/// The raw JSON text of `key`'s value in a compact JSON line (first occurrence), e.g.
/// `"12"` or `"4.25"`: what a strict receiver sees, before any parser turns 34 into 34.0.
func rawValue(of key: String, in line: String) -> String? {
    JSONScan.rawValue(of: key, in: line)
}

/// True when a raw JSON number is written as an integer (no fraction, no exponent).
func isIntegerText(_ text: String) -> Bool {
    let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
}

/// True when a raw JSON number has at most `places` decimals and no exponent.
func hasAtMostDecimals(_ text: String, _ places: Int) -> Bool {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, isIntegerText(String(parts[0])) else { return false }
    guard parts.count == 2 else { return true }
    return !parts[1].isEmpty && parts[1].count <= places && parts[1].allSatisfy { $0.isASCII && $0.isNumber }
}
