/// When records become durable and when segments are sealed.
public struct JournalPolicy: Sendable, Equatable {
    /// Records wait in memory at most this long before a commit (one member, one fsync).
    /// 0 commits every record. Power loss loses at most this much; a clean exit nothing.
    public var commitInterval: Double = 5
    /// A commit happens at once when this many bytes of records wait.
    public var commitBytes = 256 << 10
    /// The same for a bulk import (a file read as fast as it can be, committed on a second
    /// thread): fewer commits, so fewer fsyncs, each still of members of at most 256 KiB.
    /// 1 MiB rather than 256 KiB took the real drive x20 import from 234 to 205 ms here
    /// (best of 12; docs/performance.md); the file is still there to read again should
    /// the import be cut short, and the time index keeps that from doubling anything.
    public var bulkCommitBytes = 1 << 20
    /// The active segment is sealed once its records reach this many bytes uncompressed.
    public var segmentMaxBytes = 4 << 20
    /// The active segment is sealed once it is this many seconds old.
    public var segmentMaxAge: Int64 = 3600
    /// Uncompressed bytes per member in a sealed segment.
    public var sealedMemberBytes = 256 << 10
    /// zlib level for the members of a commit. 4 rather than zlib's default 6: on our
    /// records it deflates 29 % faster for 6.5 % more bytes (12 % and 4.9 % against 5: measured
    /// with zlib 1.2.13 on 150 KiB members of real records), which lets a bulk
    /// import's commit thread keep up with its decoding thread. Only a bulk import keeps
    /// these members when sealed (a live logger's small ones are recompressed at `sealLevel`).
    public var commitLevel: Int32 = 4
    /// zlib level used when sealing.
    public var sealLevel: Int32 = 9

    public init() {}
}
