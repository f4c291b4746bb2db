#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs blocking work on a thread of its own and awaits it: an MQTT drain waits on its
/// connection for PUBACKs (`MQTTClient.step`, up to the request timeout), and run in a task it would
/// hold one of the cooperative pool's threads, which are as many as the cores (two on a
/// small device), from the other destinations of the same run.
enum BlockingWork {
    private final class Job: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let context = Unmanaged.passRetained(Job { continuation.resume(returning: body()) }).toOpaque()
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            var thread = pthread_t()
            let status = pthread_create(&thread, &attributes, { raw in
                guard let raw else { return nil }
                Unmanaged<Job>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, context)
            pthread_attr_destroy(&attributes)
            if status != 0 {
                // No thread to be had: the work runs here, as it would have without this.
                Unmanaged<Job>.fromOpaque(context).takeRetainedValue().body()
            }
        }
    }
}
