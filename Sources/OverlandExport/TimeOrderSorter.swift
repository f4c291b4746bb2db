#if canImport(Glibc)
import Glibc
#endif

/// Puts an export's records in time order in bounded memory: an external merge sort.
///
/// Records are added in the order logged. While each is at or after the one before, the
/// journal itself is the sorted run: nothing is kept (the export reads that stretch from
/// the journal again). From the first record earlier than the one before it, records are
/// gathered in chunks of at most `chunkRecords` records and `chunkBytes` bytes of lines
/// (a line may be 64 KiB), each sorted and written to a temporary
/// file (mode 0600, in a private directory of mode 0700 under `parent`), and the runs are
/// merged k ways (at most `mergeWidth` files open at once; more are merged in rounds).
/// A journal in time order thus costs no temporary file and no memory beyond one record.
final class TimeOrderSorter {
    let chunkRecords: Int
    let chunkBytes: Int
    let parent: String
    let mergeWidth: Int

    /// True once a record came earlier than the one before it.
    private(set) var disordered = false
    /// The in-order stretch at the start: the records before the first disorder, and the
    /// sequence just after the last of them.
    private(set) var prefixCount = 0
    private(set) var prefixEnd: UInt64?
    private var lastKey = Int64.min
    private var chunk: [SortEntry] = []
    private var chunkLineBytes = 0
    private var runs: [String] = []
    private var directory: String?
    private var made = 0

    init(chunkRecords: Int, chunkBytes: Int = 16 << 20, parent: String, mergeWidth: Int = 64) {
        self.chunkRecords = max(chunkRecords, 1)
        self.chunkBytes = chunkBytes
        self.parent = parent
        self.mergeWidth = max(mergeWidth, 2)
    }

    deinit { removeFiles() }

    /// How many runs went to temporary files.
    var spilledRuns: Int { made }

    func add(key: Int64, sequence: UInt64, line: ArraySlice<UInt8>) throws(ExportSortError) {
        if !disordered {
            if key >= lastKey {
                lastKey = key
                prefixCount += 1
                prefixEnd = sequence + 1
                return
            }
            disordered = true
        }
        chunk.append(SortEntry(key: key, sequence: sequence, line: Array(line)))
        chunkLineBytes += line.count
        if chunk.count >= chunkRecords || chunkLineBytes >= chunkBytes { try spill() }
    }

    /// Merges the in-order stretch (read again by `prefix`) with every run, handing each
    /// record to `body` in time order. The files are removed as they are used up.
    func merge(prefix: any SortedSource, _ body: (SortEntry) throws -> Void) throws {
        chunk.sort(by: <)
        while runs.count + 2 > mergeWidth {
            let group = Array(runs.prefix(mergeWidth))
            runs.removeFirst(group.count)
            let writer = try SpillWriter(path: try nextPath())
            var sources: [any SortedSource] = []
            for path in group { sources.append(try SpillReader(path: path)) }
            try Self.merge(&sources) { try writer.append($0) }
            try writer.finish()
            for path in group { unlink(path) }
            runs.append(writer.path)
        }
        var sources: [any SortedSource] = [prefix]
        for path in runs { sources.append(try SpillReader(path: path)) }
        sources.append(ArraySource(entries: chunk))
        chunk = []
        try Self.merge(&sources, body)
        removeFiles()
    }

    /// Removes the temporary directory and whatever is left in it.
    func removeFiles() {
        for path in runs { unlink(path) }
        runs = []
        if let directory {
            rmdir(directory)
            self.directory = nil
        }
    }

    private func spill() throws(ExportSortError) {
        chunk.sort(by: <)
        let writer = try SpillWriter(path: try nextPath())
        runs.append(writer.path)
        for entry in chunk { try writer.append(entry) }
        try writer.finish()
        chunk.removeAll(keepingCapacity: true)
        chunkLineBytes = 0
    }

    private func nextPath() throws(ExportSortError) -> String {
        if directory == nil {
            var template = Array((parent + "/overland-export-sort-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else { throw .io("create a directory for", parent + "/overland-export-sort-XXXXXX") }
            directory = String(cString: made)
        }
        made += 1
        return directory! + "/run-\(made)"
    }

    /// A k-way merge: the smallest head among the sources, each time (k is at most
    /// `mergeWidth`, so a scan beats a heap's bookkeeping).
    static func merge(_ sources: inout [any SortedSource], _ body: (SortEntry) throws -> Void) throws {
        var heads: [SortEntry?] = []
        for index in sources.indices { heads.append(try sources[index].next()) }
        while true {
            var best: Int?
            for index in heads.indices {
                guard let head = heads[index] else { continue }
                if let current = best, let bestHead = heads[current], !(head < bestHead) { continue }
                best = index
            }
            guard let index = best, let entry = heads[index] else { return }
            try body(entry)
            heads[index] = try sources[index].next()
        }
    }
}

/// Sorted entries, one at a time.
protocol SortedSource {
    mutating func next() throws -> SortEntry?
}

extension SpillReader: SortedSource {
    func next() throws -> SortEntry? { try read() }
}

/// The last chunk, sorted in memory.
struct ArraySource: SortedSource {
    var entries: [SortEntry]
    var position = 0

    mutating func next() throws -> SortEntry? {
        guard position < entries.count else { return nil }
        defer { position += 1 }
        return entries[position]
    }
}
