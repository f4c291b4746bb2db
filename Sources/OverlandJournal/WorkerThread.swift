#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One long-lived POSIX thread that runs the jobs handed to it, one at a time.
///
/// Long-lived rather than a thread per job: the scheduler places a new thread next to the
/// one that made it, and a job of a few milliseconds ends before it is moved to the idle
/// core, so the two would take turns on one core.
///
/// Nothing here makes a job's data safe to share: the caller hands over what the job
/// touches and does not touch it again until `wait()` returns (the appender's background
/// commit works that way).
final class WorkerThread: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var thread: pthread_t?
    /// Guarded by `mutex`.
    private var job: (() -> Void)?
    private var running = false
    private var stopping = false

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        if let thread {
            pthread_mutex_lock(mutex)
            stopping = true
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
            pthread_join(thread, nil)
        }
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Starts `job` on the thread, after the previous one has finished; runs it here and
    /// now when no thread can be made.
    func submit(_ job: @escaping () -> Void) {
        wait()
        if thread == nil && !start() {
            job()
            return
        }
        pthread_mutex_lock(mutex)
        self.job = job
        running = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
    }

    /// Returns once the job last submitted has finished.
    func wait() {
        pthread_mutex_lock(mutex)
        while running { pthread_cond_wait(changed, mutex) }
        pthread_mutex_unlock(mutex)
    }

    private func start() -> Bool {
        var created = pthread_t()
        // The thread holds the worker unretained: deinit joins it before anything goes.
        let context = Unmanaged.passUnretained(self).toOpaque()
        let status = pthread_create(&created, nil, { context in
            Unmanaged<WorkerThread>.fromOpaque(context!).takeUnretainedValue().loop()
            return nil
        }, context)
        guard status == 0 else { return false }
        thread = created
        return true
    }

    private func loop() {
        while runNextJob() {
            pthread_mutex_lock(mutex)
            running = false
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }
    }

    /// Waits for a job and runs it; false once the worker stops. The job is released
    /// before `wait()` can return, so nothing it holds is let go on this thread afterwards.
    private func runNextJob() -> Bool {
        pthread_mutex_lock(mutex)
        while job == nil && !stopping { pthread_cond_wait(changed, mutex) }
        let next = job
        job = nil
        pthread_mutex_unlock(mutex)
        guard let next else { return false }
        next()
        return true
    }
}
