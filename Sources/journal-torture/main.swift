// journal-torture: drives the journal library from the command line for the crash and
// fault tests (it is not installed). Every commit is reported on stdout, flushed, before
// the next one starts, so a test that kills this process knows what was durable.
//
//   journal-torture append DIR COUNT [--commit-every K] [--writer NAME] [--seal]
//                                    [--segment-bytes B] [--pad BYTES] [--step S]
//                                    (--step: after each of the first S commits, waits for
//                                    a line on stdin, so a test sets the interleaving)
//   journal-torture read DIR [--from SEQ]        prints "SEQ LINE" per record
//   journal-torture cursor DIR [--reader NAME]   prints the floor (cursor.json), or a reader's cursor
//   journal-torture advance DIR SEQ [--reader NAME]  moves the default reader's cursor, or NAME's
//   journal-torture end DIR                      prints end sequence and backlog
//   journal-torture recover DIR                  opens an appender (repairs) and exits
//   journal-torture seal DIR                     seals the active segment
//   journal-torture prune DIR [--keep SECONDS]   removes sent segments
#if canImport(Glibc)
import Glibc
#endif
import OverlandJournal

func emit(_ text: String, to fd: Int32) {
    var text = text
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}

func fail(_ message: String, status: Int32 = 1) -> Never {
    emit("journal-torture: \(message)\n", to: 2)
    exit(status)
}

/// Unbuffered, so that a line is out before the next step can be killed.
func say(_ line: String) { emit(line + "\n", to: 1) }

/// Waits for a line on standard input (a test's go-ahead); false at its end.
func awaitGoAhead() -> Bool {
    var byte: UInt8 = 0
    while true {
        let got = read(0, &byte, 1)
        if got == 1 {
            if byte == UInt8(ascii: "\n") { return true }
        } else if got < 0 && errno == EINTR {
            continue
        } else {
            return false
        }
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else { fail("usage: journal-torture COMMAND DIR ...", status: 64) }
let command = arguments.removeFirst()
let directory = arguments.removeFirst()

@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name) else { return nil }
    guard index + 1 < arguments.count else { fail("\(name) needs a value", status: 64) }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
    return value
}

@MainActor func flag(_ name: String) -> Bool {
    guard let index = arguments.firstIndex(of: name) else { return false }
    arguments.remove(at: index)
    return true
}

let report: JournalIssueHandler = { issue in emit("issue: \(issue)\n", to: 2) }

do {
    switch command {
    case "append":
        let commitEvery = Int(option("--commit-every") ?? "1") ?? 1
        let writer = option("--writer") ?? "w"
        let pad = Int(option("--pad") ?? "0") ?? 0
        var policy = JournalPolicy()
        policy.commitInterval = 1e9
        if let bytes = option("--segment-bytes").flatMap(Int.init) { policy.segmentMaxBytes = bytes }
        let seal = flag("--seal")
        var steps = Int(option("--step") ?? "0") ?? 0
        guard let count = arguments.first.flatMap(Int.init) else { fail("append needs a COUNT", status: 64) }
        let journal = try Journal(path: directory, create: true, deviceID: "torture")
        let appender = try JournalAppender(journal: journal, policy: policy, onIssue: report)
        let padding = String(repeating: "x", count: pad)
        for index in 0..<count {
            try appender.append(Array("{\"writer\":\"\(writer)\",\"n\":\(index),\"pad\":\"\(padding)\"}".utf8))
            if appender.pendingRecords >= commitEvery || index == count - 1 {
                let committed = appender.pendingRecords
                try appender.commit()
                say("committed \(writer) \(index + 1 - committed)..<\(index + 1)")
                if steps > 0 { steps = awaitGoAhead() ? steps - 1 : 0 }
            }
        }
        if seal { try appender.sealActive() }
    case "append-lines":
        // Appends each line of a file of JSON lines, as a logger would.
        let commitEvery = Int(option("--commit-every") ?? "1") ?? 1
        let seal = flag("--seal")
        var policy = JournalPolicy()
        policy.commitInterval = 1e9
        policy.commitBytes = Int.max
        if let bytes = option("--segment-bytes").flatMap(Int.init) { policy.segmentMaxBytes = bytes }
        if let level = option("--seal-level").flatMap(Int32.init) { policy.sealLevel = level }
        if let bytes = option("--sealed-member-bytes").flatMap(Int.init) { policy.sealedMemberBytes = bytes }
        guard let file = arguments.first else { fail("append-lines needs a FILE", status: 64) }
        guard let input = fopen(file, "r") else { fail("cannot open '\(file)'", status: 66) }
        let journal = try Journal(path: directory, create: true, deviceID: "torture")
        let appender = try JournalAppender(journal: journal, policy: policy, onIssue: report)
        var line: UnsafeMutablePointer<CChar>? = nil
        var capacity = 0
        var total = 0
        while true {
            let length = getline(&line, &capacity, input)
            if length <= 0 { break }
            let bytes = UnsafeRawBufferPointer(start: line, count: length)
            try appender.append(bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...])
            total += 1
            if appender.pendingRecords >= commitEvery { try appender.commit() }
        }
        try appender.commit()
        if seal { try appender.sealActive() }
        say("appended \(total)")
    case "read":
        let from = UInt64(option("--from") ?? "0") ?? 0
        let journal = try Journal(path: directory)
        let reader = try journal.records(from: from, onIssue: report)
        while let record = try reader.next() {
            say("\(record.sequence) \(String(decoding: record.line, as: UTF8.self))")
        }
    case "cursor":
        if let reader = option("--reader") {
            guard let name = CursorName(reader) else { fail("not a reader name: \(reader)", status: 64) }
            say(String(try Journal(path: directory).cursor(for: name)))
        } else {
            say(String(try Journal(path: directory).cursor()))
        }
    case "advance":
        let reader = option("--reader")
        guard let next = arguments.first.flatMap(UInt64.init) else { fail("advance needs a SEQ", status: 64) }
        guard let name = reader.map({ CursorName($0) }) ?? .default else { fail("not a reader name", status: 64) }
        try Journal(path: directory).advanceCursor(for: name, to: next)
    case "end":
        let journal = try Journal(path: directory)
        say("end \(try journal.endSequence()) backlog \(try journal.backlog())")
    case "recover":
        _ = try JournalAppender(journal: Journal(path: directory, create: true), onIssue: report)
    case "seal":
        try JournalAppender(journal: Journal(path: directory), onIssue: report).sealActive()
    case "prune":
        let keep = Int64(option("--keep") ?? "0") ?? 0
        for name in try Journal(path: directory).removeSentSegments(keepSeconds: keep) { say("removed \(name)") }
    default:
        fail("unknown command '\(command)'", status: 64)
    }
} catch {
    fail(error.description, status: error.isIOError ? 74 : 65)
}
