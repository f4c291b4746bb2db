// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "overland",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "overland-log", targets: ["overland-log"]),
        .executable(name: "overland-sync", targets: ["overland-sync"]),
        .executable(name: "overland", targets: ["overland"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.60.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
    ],
    targets: [
        // The system zlib (Debian: libz-dev), for gzip members.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["libz-dev"])]
        ),
        // A small JSON reader and writer over bytes: no Foundation, bounded depth and size.
        .target(name: "OverlandJSON"),
        // Input decoding (NMEA 0183, gpsd JSON, u-blox UBX: the formats of InputDecoders.all):
        // framing, decoding, fix assembly, each format's statistics. Bytes in, fixes out. Pure.
        .target(name: "OverlandInput", dependencies: ["OverlandJSON"]),
        // The wire: location Feature, request body, reply, `set`, OwnTracks.
        .target(name: "OverlandProtocol", dependencies: ["OverlandJSON"]),
        // Segments, append, seal, recover, cursor, manifest.
        .target(name: "OverlandJournal", dependencies: ["CZlib", "OverlandJSON"]),
        // Settings: the file, every key with its allowed values, presets, `set`, setup links.
        .target(name: "OverlandSettings", dependencies: ["OverlandJSON", "OverlandProtocol", "OverlandJournal"]),
        // Reads the journal from the cursor, batches, posts, advances the cursor; copy
        // detection (the machine's registry of synced journals).
        .target(
            name: "OverlandSync",
            dependencies: [
                "OverlandJournal", "OverlandProtocol", "OverlandJSON", "OverlandSettings",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // MQTT: a client on SwiftNIO and NIOSSL (a bounded frame decoder, QoS 1 publishes
        // in a window acknowledged by packet id, subscriptions, keep-alive, every wait
        // bounded), and the sender that drains a journal to a broker as OwnTracks messages.
        .target(
            name: "OverlandMQTT",
            dependencies: [
                "OverlandJournal", "OverlandProtocol", "OverlandJSON", "OverlandSync", "OverlandSettings",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // From fixes to records: filters, device metadata (battery, wifi, ids), motion, trips.
        .target(
            name: "OverlandRecorder",
            dependencies: ["OverlandInput", "OverlandProtocol", "OverlandJournal"]
        ),
        // The logger as a service: opening inputs (files, serial ports, gpsd's socket), the
        // read loop over a byte source and an injected clock, reconnection, the no-fix state,
        // the automatic trip stop.
        .target(
            name: "OverlandLogger",
            dependencies: ["OverlandInput", "OverlandRecorder", "OverlandJournal", "OverlandProtocol", "OverlandSettings", "OverlandJSON"]
        ),
        // Journals as GPX 1.1, GeoJSON and CSV, streamed.
        .target(name: "OverlandExport", dependencies: ["OverlandJournal", "OverlandProtocol", "OverlandJSON"]),
        // A journal as a picture: one self-contained HTML page or SVG (`overland map`),
        // from the export's time-ordered stream, simplified to the page's resolution.
        .target(name: "OverlandMap", dependencies: ["OverlandExport", "OverlandJournal", "OverlandProtocol", "OverlandJSON", "OverlandRecorder"]),
        // What `overland status` shows: the last point, the queues, the trip, the journal's
        // size and every destination, gathered from the journal, its state files and the
        // settings, as aligned text or one JSON object.
        .target(
            name: "OverlandStatus",
            dependencies: ["OverlandJournal", "OverlandJSON", "OverlandLogger", "OverlandProtocol", "OverlandRecorder", "OverlandSettings", "OverlandSync"]
        ),
        // What the three commands share: options, settings, exit statuses, terminal output.
        .target(
            name: "OverlandCLI",
            dependencies: [
                "OverlandInput", "OverlandProtocol", "OverlandJournal", "OverlandJSON", "OverlandRecorder",
                "OverlandSettings", "OverlandSync", "OverlandMQTT", "OverlandExport", "OverlandMap", "OverlandLogger", "OverlandStatus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "overland-log", dependencies: ["OverlandCLI"]),
        .executableTarget(
            name: "overland-sync",
            dependencies: ["OverlandCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(name: "overland", dependencies: ["OverlandCLI"]),
        // Drives the journal library through scripted appends, reads and cursor moves,
        // with fault points, for the crash tests. Not installed.
        .executableTarget(name: "journal-torture", dependencies: ["OverlandJournal"]),
        // A disk in memory that knows what is durable and what is pending, and produces the
        // crash states a power cut allows (docs/reliability.md); the seeded explorer of power
        // cuts drives the journal and the sync's cursor and state writes on it. Not installed.
        .target(name: "OverlandSimulation", dependencies: ["OverlandJournal", "OverlandSync", "OverlandJSON", "OverlandLogger", "OverlandRecorder", "OverlandSettings"]),
        .executableTarget(name: "journal-sim", dependencies: ["OverlandSimulation"]),

        // What every test target shares: one loopback HTTP server with scripted answers
        // (LocalServer), one temporary directory, one JSON scanner, loopback ports, the
        // seeded generator and fuzz budget, the generated drive. Not a product.
        .target(
            name: "TestSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/TestSupport"
        ),

        .testTarget(name: "OverlandJSONTests", dependencies: ["TestSupport", "OverlandJSON"]),
        .testTarget(name: "OverlandInputTests", dependencies: ["TestSupport", "OverlandInput"], exclude: ["Fixtures"]),
        .testTarget(name: "OverlandProtocolTests", dependencies: ["TestSupport", "OverlandProtocol"]),
        .testTarget(name: "OverlandJournalTests", dependencies: ["TestSupport", "OverlandJournal"]),
        .testTarget(name: "OverlandRecorderTests", dependencies: ["TestSupport", "OverlandRecorder"]),
        .testTarget(name: "OverlandSettingsTests", dependencies: ["TestSupport", "OverlandSettings", "OverlandSimulation", "OverlandJournal"]),
        .testTarget(name: "OverlandExportTests", dependencies: ["TestSupport", "OverlandExport"]),
        .testTarget(name: "OverlandMapTests", dependencies: ["TestSupport", "OverlandMap", "OverlandProtocol", "OverlandJournal", "OverlandExport"]),
        .testTarget(name: "OverlandMQTTTests", dependencies: ["TestSupport", "OverlandMQTT", "OverlandProtocol", "OverlandJSON"]),
        .testTarget(name: "OverlandSimulationTests", dependencies: ["TestSupport", "OverlandSimulation", "OverlandJournal"]),
        .testTarget(name: "OverlandStatusTests", dependencies: ["TestSupport", "OverlandStatus", "OverlandJournal", "OverlandSettings"]),
        .testTarget(name: "OverlandLoggerTests", dependencies: ["TestSupport", "OverlandLogger", "OverlandInput", "OverlandRecorder", "OverlandJournal", "OverlandSettings"]),
        .testTarget(
            name: "OverlandSyncTests",
            dependencies: [
                "TestSupport", "OverlandSync",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "TestSupport", "OverlandJournal", "OverlandJSON", "OverlandSync", "OverlandMQTT", "OverlandMap", "CZlib",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "overland-log", "overland-sync", "overland", "journal-torture", "journal-sim",
            ]
        ),
    ]
)

// Release builds on Linux link the Swift runtime (and FoundationEssentials, which the
// dependencies use; no target imports Foundation, so no ICU) into the executables, to
// keep resident memory down (overland-sync's peak RSS is a benchmark target):
// - `-static-stdlib`, given to the compiler too (it picks the static libraries' link
//   dependencies): no loader work on eight Swift and Foundation libraries, and only the
//   code used is resident, not the pages around it in each library;
// - lld with `-z pack-relative-relocs` (DT_RELR, glibc 2.36 and later): 110,000 relative
//   relocations take 21 KiB instead of 2.6 MiB, all of which the loader read at start;
// - `--no-export-dynamic`, after the static library's `-export-dynamic`: nothing looks up
//   the executable's symbols at run time, and its 28,000 exported ones put 2.5 MiB of
//   symbol tables in memory.
// Together: 31.5 MiB -> 23.5 MiB peak RSS for a small drain. The executables need only
// the system's libc, libm, libstdc++, libgcc_s and zlib at run time (`ldd`).
let staticRelease = BuildSettingCondition.when(platforms: [.linux], configuration: .release)
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-static-stdlib"], staticRelease)]
}
for target in package.targets where target.type == .executable {
    target.linkerSettings = (target.linkerSettings ?? []) + [
        .unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                      "-Xlinker", "--no-export-dynamic"], staticRelease),
    ]
}
