#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON

/// Where `overland export` and `overland map` write: standard output or a new private file
/// (0600, whatever held the name before), written with plain `write` calls and made durable
/// at the end.
public final class ExportOutput {
    /// The reader of standard output went away (`| head`): nothing more to say.
    public enum Closed: Error { case reader }

    private let fd: Int32
    private let path: String?

    /// `exclusive`: a file that exists is refused (`overland map` without `--force`).
    public init(path: String?, exclusive: Bool = false) throws(ExportOutputError) {
        self.path = path
        guard let path else {
            fd = 1
            return
        }
        let opened = open(path, O_WRONLY | O_CREAT | (exclusive ? O_EXCL : O_TRUNC) | O_CLOEXEC, 0o600)
        if opened < 0 {
            let code = errno
            if code == EEXIST && exclusive { throw ExportOutputError(.exists, "'\(path)' exists: --force replaces it") }
            throw ExportOutputError(code == EACCES ? .permission : .cannotCreate, "cannot create '\(path)': \(SystemErrorText.of(code))")
        }
        // An existing file keeps its mode through O_CREAT: make it private as promised. Only
        // a regular file (never a device such as /dev/stdout) is changed.
        var info = stat()
        if fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o7777 != 0o600,
           fchmod(opened, 0o600) != 0 {
            let code = errno
            close(opened)
            throw ExportOutputError(code == EPERM || code == EACCES ? .permission : .io,
                                    "cannot make '\(path)' private (mode 0600): \(SystemErrorText.of(code))")
        }
        fd = opened
    }

    deinit { if path != nil { close(fd) } }

    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE && path == nil { throw Closed.reader }
                throw failure("cannot write")
            }
            offset += written
        }
    }

    /// Makes a file durable; standard output needs nothing.
    public func finish() throws(ExportOutputError) {
        guard path != nil else { return }
        if fsync(fd) != 0 { throw failure("cannot sync") }
    }

    private func failure(_ operation: String) -> ExportOutputError {
        let code = errno
        return ExportOutputError(.io, "\(operation) '\(path ?? "standard output")': \(SystemErrorText.of(code))")
    }
}

/// Why an export's output could not be created or written.
public struct ExportOutputError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable { case exists, cannotCreate, permission, io }
    public let kind: Kind
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

extension ExportSummary {
    /// What `overland export --output FILE` says once the file is written.
    public func writtenLine(to output: String) -> String {
        "\(written) of \(Plural.count(records, "record")) written to '\(output)'"
    }

    /// The journal was not in time order: how many points came earlier than one logged
    /// before them, and the span they were sorted into. Nil when it was in order.
    public var outOfOrderLine: String? {
        guard outOfOrder > 0, let earliest, let latest else { return nil }
        return "the journal is not in time order: \(Plural.count(outOfOrder, "point")) earlier " +
            "than a point logged before them; written oldest first all the same (the points span " +
            "\(ISO8601UTC.string(from: earliest)) to \(ISO8601UTC.string(from: latest)))"
    }
}
