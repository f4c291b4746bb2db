/// Something wrong found in a journal that did not stop the operation: damage skipped,
/// a torn tail repaired, a file that is not part of the format. Reported through a
/// callback so that the commands decide how to show it.
public struct JournalIssue: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Bytes in a segment that hold no valid record; the records there are lost to
        /// readers. `offset` and `length` say where.
        case damage
        /// The end of the active segment held an unfinished write, cut off on open.
        case tornTailRepaired
        /// A damaged segment was rewritten with its intact records; the original was
        /// moved to `damaged/`.
        case setAside
        /// A file in `segments/` that is not a segment (ignored).
        case unexpectedFile
    }

    public var kind: Kind
    /// The file concerned, relative to the journal directory (`segments/000…0.jsonl.gz`).
    public var file: String
    public var offset: Int
    public var length: Int
    public var reason: String
    /// For `damage`: the reason code of journal-format.md section 8.
    public var code: DamageCode? = nil

    public var description: String {
        switch kind {
        case .damage:
            return "\(file): \(length) damaged bytes at offset \(offset) skipped (\(reason))"
        case .tornTailRepaired:
            return "\(file): cut \(length) bytes of an unfinished write at offset \(offset) (\(reason))"
        case .setAside:
            return "\(file): damaged segment set aside as \(reason); its intact records were kept"
        case .unexpectedFile:
            return "\(file): not a segment name, ignored (\(reason))"
        }
    }
}

/// Receives issues as they are found.
public typealias JournalIssueHandler = @Sendable (JournalIssue) -> Void
