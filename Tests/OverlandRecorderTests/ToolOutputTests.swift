import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import OverlandRecorder

/// ToolOutput runs `iw` and `iwgetid` without Foundation: through posix_spawn, here with
/// /bin/sh standing in for them.
@Suite struct ToolOutputTests {
    @Test func returnsStandardOutputOfASuccessfulRun() throws {
        let output = try #require(ToolOutput.run("/bin/sh", ["-c", "echo '\tSSID: harbour'; echo ignored >&2"]))
        #expect(String(decoding: output, as: UTF8.self) == "\tSSID: harbour\n")
    }

    @Test func aFailingToolGivesNothing() {
        #expect(ToolOutput.run("/bin/sh", ["-c", "echo partial; exit 3"]) == nil)
        #expect(ToolOutput.run("/bin/sh", ["-c", "kill -TERM $$"]) == nil)
        #expect(ToolOutput.run("/nonexistent/iw", ["dev"]) == nil)
    }

    @Test func outputPastTheLimitIsReadAndDropped() throws {
        // 1 MiB through a 64 KiB pipe: the child must not block on a full pipe.
        let output = try #require(ToolOutput.run("/bin/sh", ["-c", "head -c 1048576 /dev/zero"], limit: 100))
        #expect(output.count == 100)
    }

    @Test func theChildReadsNothingAndGetsNoBlockedSignals() throws {
        // Standard input is /dev/null (cat ends at once) and the caller's blocked SIGTERM is
        // not inherited (SigBlk of the child is empty).
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &set, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let output = try #require(ToolOutput.run("/bin/sh", ["-c", "cat; grep SigBlk /proc/self/status"]))
        #expect(String(decoding: output, as: UTF8.self) == "SigBlk:\t0000000000000000\n")
    }

    @Test func findsToolsOnPathAndInSbin() {
        #expect(ToolOutput.find("sh") != nil)
        #expect(ToolOutput.find("no-such-tool-overland") == nil)
    }
}
