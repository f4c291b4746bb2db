// Double.squareRoot() calls libm's sqrt on Linux; importing the C library (nothing else is
// used from it) makes every client link libm, even one without Foundation.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How NMEA input becomes accuracy estimates, in metres.
///
/// - From GST when the cycle has one (receivers that estimate their own error):
///   horizontal = √(latitude error² + longitude error²), vertical = altitude error. These
///   are the receiver's one-sigma values.
/// - Otherwise from the dilutions of precision times a user-equivalent range error (UERE)
///   that depends on the fix quality: 5 m autonomous (GPS, estimated, manual, simulation,
///   unknown), 1 m DGPS/SBAS and PPS, 0.5 m RTK float, 0.05 m RTK fixed.
///   horizontal = HDOP × UERE; vertical = VDOP × UERE, or √(PDOP² − HDOP²) × UERE when
///   only PDOP and HDOP are known. Without the DOPs the accuracy is unknown (nil).
/// - A 2D fix has no vertical accuracy (its altitude is not measured).
/// - Speed and course accuracy: unknown (nil). NMEA carries no velocity error; a
///   DOP-based guess would need the receiver's Doppler noise, which it does not state.
///
/// DOP × UERE is a rough one-sigma figure, comparable to GST, in the spirit of gpsd's own
/// error model (which reports 95 % figures with a larger UERE). It is an estimate for
/// ranking and filtering points, not ground truth.
public enum AccuracyModel {
    /// The user-equivalent range error in metres assumed for a fix quality.
    public static func userEquivalentRangeError(for quality: FixQuality?) -> Double {
        switch quality {
        case .rtkFixed?: 0.05
        case .rtkFloat?: 0.5
        case .dgps?, .pps?: 1
        case .gps?, .estimated?, .manual?, .simulation?, nil: 5
        }
    }

    /// Horizontal accuracy in metres from GST errors if both are known, else HDOP × UERE.
    public static func horizontalAccuracy(
        latitudeError: Double?, longitudeError: Double?, hdop: Double?, quality: FixQuality?
    ) -> Double? {
        if let latitudeError, let longitudeError {
            return (latitudeError * latitudeError + longitudeError * longitudeError).squareRoot()
        }
        guard let hdop else { return nil }
        return hdop * userEquivalentRangeError(for: quality)
    }

    /// Vertical accuracy in metres from the GST error if known, else VDOP × UERE, else
    /// √(PDOP² − HDOP²) × UERE.
    public static func verticalAccuracy(
        altitudeError: Double?, vdop: Double?, pdop: Double?, hdop: Double?, quality: FixQuality?
    ) -> Double? {
        if let altitudeError { return altitudeError }
        let uere = userEquivalentRangeError(for: quality)
        if let vdop { return vdop * uere }
        if let pdop, let hdop, pdop >= hdop {
            return (pdop * pdop - hdop * hdop).squareRoot() * uere
        }
        return nil
    }

    /// Fills the horizontal and vertical accuracy of an NMEA fix from its GST errors,
    /// DOPs and quality; speed and course accuracy stay unknown.
    public static func apply(to fix: inout Fix) {
        fix.horizontalAccuracy = horizontalAccuracy(
            latitudeError: fix.latitudeError, longitudeError: fix.longitudeError, hdop: fix.hdop,
            quality: fix.quality)
        fix.verticalAccuracy =
            fix.mode == .threeD
            ? verticalAccuracy(
                altitudeError: fix.altitudeError, vdop: fix.vdop, pdop: fix.pdop, hdop: fix.hdop,
                quality: fix.quality)
            : nil
    }
}
