import CLinuxCalls
import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// Runs an `InboxProcessor` whenever its Inbox changes, as told by inotify:
/// on items created in or moved into the Inbox, on files closed after
/// writing, and on the Inbox appearing in its parent folder. Items still
/// settling are retried when their settle interval has passed. Stops on
/// SIGINT or SIGTERM once the pass in progress is done, never in the middle
/// of a move.
public final class InboxWatcher {
    /// The processor each pass runs; its Inbox is the one watched.
    public let processor: InboxProcessor

    /// Makes a watcher for `processor`'s Inbox; nothing is watched until
    /// `run(_:finished:)`.
    public init(processor: InboxProcessor) { self.processor = processor }

    /// Watches until SIGINT or SIGTERM arrives and returns its number.
    /// `observe` hears each pass's events and `finished` each pass's summary.
    public func run(
        _ observe: (InboxProcessor.Event) -> Void,
        finished: (InboxProcessor.Summary) -> Void
    ) throws(InboxProcessor.Failure) -> Int32 {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &signals, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let signalFD = uti_signal_descriptor(&signals)
        guard signalFD >= 0 else {
            throw InboxProcessor.Failure(path: "signals", reason: SystemError.current.description)
        }
        defer { close(signalFD) }
        let notify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard notify >= 0 else {
            throw InboxProcessor.Failure(path: processor.inboxPath, reason: "cannot watch: \(SystemError.current)")
        }
        defer { close(notify) }

        let inboxPath = processor.inboxPath
        let parentPath = InboxProcessor.split(inboxPath).folder
        guard inotify_add_watch(notify, parentPath, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)) >= 0 else {
            throw InboxProcessor.Failure(path: parentPath, reason: "cannot watch: \(SystemError.current)")
        }
        let inboxMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_ONLYDIR | IN_DONT_FOLLOW)
        while true {
            // Watch the Inbox before the pass, so nothing arriving during it is missed.
            _ = inotify_add_watch(notify, inboxPath, inboxMask)
            var retryAfter: Double? = nil
            let summary = try processor.run { event in
                if case .item(let report) = event, case .waiting(let reason) = report.outcome {
                    let interval = processor.options.settle.interval
                    let wait: Double
                    switch reason {
                    case .changedRecently(let age): wait = max(interval - age, 0) + 0.05
                    case .openForWriting: wait = max(interval, 1)
                    case .writerUnknown(let age): wait = max(processor.options.settle.writerWindow - age, 1)
                    case .linkTargetInInbox: wait = max(interval, 1)
                    }
                    retryAfter = min(retryAfter ?? wait, wait)
                }
                observe(event)
            }
            finished(summary)
            var fds = [
                pollfd(fd: notify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
            ]
            let timeout = retryAfter.map { Int32(min($0 * 1000, 3_600_000).rounded(.up)) } ?? -1
            let ready = poll(&fds, 2, timeout)
            if ready < 0 && errno != EINTR {
                throw InboxProcessor.Failure(path: inboxPath, reason: "cannot wait for changes: \(SystemError.current)")
            }
            if fds[1].revents & Int16(POLLIN) != 0 {
                let signal = uti_read_signal(signalFD)
                if signal == SIGINT || signal == SIGTERM { return signal }
            }
            if fds[0].revents & Int16(POLLIN) != 0 { Self.drain(notify) }
        }
    }

    private static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
