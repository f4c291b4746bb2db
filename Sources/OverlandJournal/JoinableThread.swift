#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs one closure on a POSIX thread of its own; `join()` waits for it to return.
///
/// Nothing here makes the closure's data safe to share: the caller hands over what the
/// closure touches and does not touch it again until `join()` returns (the appender's
/// background commit works that way).
final class JoinableThread: @unchecked Sendable {
    private var thread = pthread_t()
    private var body: (() -> Void)?
    private var started = false

    /// Starts `body` on a new thread, or runs it here and now when no thread can be made.
    init(_ body: @escaping () -> Void) {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            let job = Unmanaged<JoinableThread>.fromOpaque(context!).takeRetainedValue()
            job.run()
            return nil
        }, context)
        if status == 0 {
            started = true
        } else {
            Unmanaged<JoinableThread>.fromOpaque(context).release()
            run()
        }
    }

    private func run() {
        body?()
        body = nil
    }

    /// Waits until the closure has returned. Call it once.
    func join() {
        guard started else { return }
        pthread_join(thread, nil)
        started = false
    }

    deinit { join() }
}
