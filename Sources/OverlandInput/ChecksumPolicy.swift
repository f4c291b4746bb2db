/// What to do with a sentence that carries no `*hh` checksum. A sentence whose checksum is
/// present but wrong is always rejected.
///
/// Most receivers checksum every sentence, and there a sentence without one is almost
/// always damaged: a line cut short when a capture or the power ended, or two sentences
/// run together after lost bytes. Accepting it would let a truncated field through
/// (`4404.1` instead of `4404.13387` is 150 m off). A few receivers (the HP/Symmetricom
/// 58534A, some marine instruments) never send checksums; gpsd accepts them, which is how
/// it reads such devices at all.
public enum ChecksumPolicy: Sendable, Equatable {
    /// Reject every sentence without a checksum.
    case required
    /// Accept sentences without a checksum until the stream has delivered one with a valid
    /// checksum; from then on the receiver is known to send checksums and a sentence
    /// without one is damaged, so it is rejected. The default: checksum-less receivers
    /// work, checksummed streams are protected from truncated lines.
    case requiredOnceSeen
    /// Accept every sentence without a checksum (gpsd's behaviour).
    case optional
}
