import Dispatch
import Foundation
import ScanCore
import ScanStore
import Synchronization

/// Deliveries off the scan's path: one thread sends the session's `http` and `mqtt` actions
/// and retries what waits in the outbox, also while the session is idle (a station standing by
/// delivers once the webhook is back). The session waits at most ``wait`` for an answer: an
/// acknowledged delivery is `done` on its record, anything slower `queued`, and this thread
/// carries on. The outbox entry was written before the first attempt (``ActionRunner``), so
/// nothing is lost when the process ends first; this thread writes every outcome to it, through
/// a connection of its own.
final class DeliveryThread: Sendable {
    /// One delivery handed over by the session, and its outcome once known.
    final class Job: Sendable {
        let entry: Outbox.Entry
        let request: Forwarder.Request
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Forwarder.Outcome?>(nil)
        init(entry: Outbox.Entry, request: Forwarder.Request) {
            self.entry = entry
            self.request = request
        }
    }

    struct State {
        var jobs: [Job] = []
        var stopping = false
        /// The job being attempted now.
        var current: Job?
    }

    /// How long the session waits for an answer before a delivery is `queued`.
    let wait: TimeInterval
    /// How often the thread looks at the outbox for deliveries due again.
    let interval: TimeInterval
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread. `storePath`: the outbox's database (its own connection);
    /// `network`, `maxAttempts`, `maxAge`: the session's allow-list and give-up rules.
    init(storePath: String, sandboxed: Bool, network: NetworkPolicy, maxAttempts: Int, maxAge: TimeInterval,
         wait: TimeInterval, interval: TimeInterval = 1) {
        self.wait = wait
        self.interval = interval
        let thread = Thread { [self] in
            // What only this thread touches: the senders (curl, broker connections) and the outbox.
            let runner = ActionRunner(dryRun: false, trusted: network.trusted)
            runner.store = Store(path: storePath, sandboxed: sandboxed)
            runner.network = network
            runner.maxAttempts = maxAttempts
            runner.maxAge = maxAge
            self.loop(runner)
            runner.close()
            self.finished.signal()
        }
        thread.name = "scanlua-delivery"
        thread.start()
    }

    /// Hands a delivery over; returns its outcome when it came within ``wait``, else nil (it goes
    /// on here, and its outbox entry says how it ended).
    func send(_ entry: Outbox.Entry, _ request: Forwarder.Request) -> Forwarder.Outcome? {
        let job = Job(entry: entry, request: request)
        state.withLock { $0.jobs.append(job) }
        wake.signal()
        guard job.done.wait(timeout: .now() + wait) == .success else { return nil }
        return job.outcome.withLock { $0 }
    }

    /// No more deliveries: what was handed over is attempted, for at most `seconds`. Returns the
    /// entries still in flight or waiting then (they stay queued in the outbox); empty when the
    /// thread finished in time.
    func finish(waitingUpTo seconds: TimeInterval) -> [Outbox.Entry] {
        state.withLock { $0.stopping = true }
        wake.signal()
        if finished.wait(timeout: .now() + seconds) == .success { return [] }
        return state.withLock { s in (s.current.map { [$0] } ?? []) + s.jobs }.map(\.entry)
    }

    private func loop(_ runner: ActionRunner) {
        var nextLook = Date()
        while true {
            let (jobs, stopping) = state.withLock { s -> ([Job], Bool) in
                let jobs = s.jobs
                s.jobs = []
                return (jobs, s.stopping)
            }
            for job in jobs {
                state.withLock { $0.current = job }
                let outcome = runner.attempt(job.entry, job.request)
                state.withLock { $0.current = nil }
                job.outcome.withLock { $0 = outcome }
                job.done.signal()
            }
            if stopping && jobs.isEmpty { return }
            if jobs.isEmpty && Date() >= nextLook {
                // Idle: what is due again in the outbox (a webhook back after an outage).
                runner.retryDue()
                nextLook = Date().addingTimeInterval(interval)
            }
            if jobs.isEmpty { _ = wake.wait(timeout: .now() + max(0.05, nextLook.timeIntervalSinceNow)) }
        }
    }
}
