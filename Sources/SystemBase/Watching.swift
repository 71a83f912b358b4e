import CLinuxCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Stops a watch from any thread or task: a watch run until it is stopped
/// returns once the work in progress is done after `stop()`.
public final class WatchStop: Sendable {
    /// An eventfd that becomes readable on `stop()`.
    package let descriptor: Int32

    /// Makes a stop that is not stopped; throws when the system has no
    /// eventfd to give.
    public init() throws(SystemError) {
        descriptor = uti_event_descriptor()
        guard descriptor >= 0 else { throw SystemError.current }
    }

    deinit { close(descriptor) }

    /// Asks every watch using this stop to end after its work in progress.
    public func stop() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(descriptor, $0.baseAddress, 8) }
    }

    /// Whether `stop()` was called (it stays stopped).
    public var isStopped: Bool {
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, 0) > 0 && fds[0].revents & Int16(POLLIN) != 0
    }
}

/// SIGINT and SIGTERM as a descriptor to wait on, for a watch on a
/// program's main thread.
package enum TerminationSignals {
    /// Runs `body` with SIGINT and SIGTERM blocked in the calling thread
    /// (its mask is restored after) and readable from a signalfd: `body` gets
    /// the descriptor and a function that reads the signal that arrived
    /// (nil for another). Returns the signal `body` saw last (0 if none).
    /// When no signalfd can be made, throws what `failure` makes of the error.
    package static func wait<Failure: Error>(
        failure: (SystemError) -> Failure,
        _ body: (Int32, () -> Int32?) throws(Failure) -> Void
    ) throws(Failure) -> Int32 {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &signals, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let signalFD = uti_signal_descriptor(&signals)
        guard signalFD >= 0 else { throw failure(SystemError.current) }
        defer { close(signalFD) }
        var stoppedBy: Int32 = 0
        try body(signalFD) {
            let signal = uti_read_signal(signalFD)
            guard signal == SIGINT || signal == SIGTERM else { return nil }
            stoppedBy = signal
            return signal
        }
        return stoppedBy
    }
}

/// Runs `body` on a new thread of its own (a watch blocks in `poll`, so it
/// never takes a thread of Swift's cooperative pool).
package func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(
        &thread, nil,
        { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
    if started == 0 {
        pthread_detach(thread)
    } else {
        Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
    }
}
