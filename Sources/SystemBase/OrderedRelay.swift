import Dispatch

/// Hands events from one producer to a consumer on a thread of its own, in
/// the order they were sent, so that the producer (an inbox run moving
/// files) never waits for the consumer (typing and printing them). Events
/// go over in batches, which keeps the cost of waking that thread off each
/// event: a batch leaves when it holds `batchSize` events or the oldest
/// pending one has waited `maximumDelay`, and at every `flush`.
///
/// `send` and `flush` are called by the producer only; the consumer runs
/// only on the relay's queue, one batch or step at a time.
public final class OrderedRelay<Event: Sendable>: @unchecked Sendable {
    private let queue: DispatchQueue
    private let deliver: @Sendable ([Event]) -> Void
    private let batchSize: Int
    private let maximumDelay: Duration
    /// Touched only by the producer.
    private var pending: [Event] = []
    private var lastFlush = ContinuousClock.now

    /// Makes a relay that hands batches to `deliver` on a serial queue named `label`.
    ///
    /// A batch leaves when it holds `batchSize` events (at least 1), or at
    /// the first `send` more than `maximumDelay` after the last flush.
    public init(
        label: String, batchSize: Int = 256, maximumDelay: Duration = .milliseconds(50),
        deliver: @escaping @Sendable ([Event]) -> Void
    ) {
        queue = DispatchQueue(label: label)
        self.batchSize = max(1, batchSize)
        self.maximumDelay = maximumDelay
        self.deliver = deliver
    }

    /// Queues `event`; a full or old batch leaves at once.
    public func send(_ event: Event) {
        pending.append(event)
        if pending.count >= batchSize || ContinuousClock.now - lastFlush > maximumDelay { flush() }
    }

    /// Hands every pending event to the consumer.
    public func flush() {
        lastFlush = .now
        guard !pending.isEmpty else { return }
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        queue.async { [deliver] in deliver(batch) }
    }

    /// Runs `step` on the consumer's thread after every event sent so far,
    /// without waiting for it.
    public func afterDelivery(_ step: @escaping @Sendable () -> Void) {
        flush()
        queue.async(execute: step)
    }

    /// Runs `step` on the consumer's thread after every event sent so far,
    /// and returns when it has run.
    public func waitForDelivery<Result>(_ step: () throws -> Result) rethrows -> Result {
        flush()
        return try queue.sync(execute: step)
    }
}

/// A value made on another thread while the caller goes on, and waited for
/// only where it is needed (an inbox run's registry: needed for a taken
/// name's extension and for the report, not for the first moves).
public final class BackgroundValue<Value: Sendable, Failure: Error>: @unchecked Sendable {
    private var result: Result<Value, Failure>?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `make` on a global queue.
    public init(_ make: @escaping @Sendable () throws(Failure) -> Value) {
        DispatchQueue.global().async { [self] in
            do throws(Failure) { result = .success(try make()) } catch { result = .failure(error) }
            done.signal()
        }
    }

    /// Waits for the value, once made; every later call returns at once.
    public func wait() throws(Failure) -> Value {
        done.wait()
        done.signal()
        return try result!.get()
    }
}
