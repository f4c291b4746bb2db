/// The outcome of decoding one sentence candidate.
public enum NMEADecodeResult: Sendable, Equatable {
    /// A sentence of a supported type, decoded.
    case sentence(NMEASentence)
    /// A well-formed sentence of a type this module does not use (GSV, TXT, proprietary,
    /// AIS), or with an address that is not a standard talker and type.
    case ignored
    /// The `*hh` checksum did not match, or the `*` was not followed by two hex digits.
    case badChecksum
    /// No checksum, and the ``ChecksumPolicy`` requires one.
    case missingChecksum
    /// A supported type with a field that does not parse or is out of range.
    case malformed
}
