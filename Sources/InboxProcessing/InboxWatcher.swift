import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// Runs an `InboxProcessor` whenever its Inbox changes, as told by inotify:
/// on items created in or moved into the Inbox, on files closed after
/// writing, and on the Inbox appearing in its parent folder. Items still
/// settling are retried when their settle interval has passed. Stops once
/// the pass in progress is done, never in the middle of a move: on an
/// `InboxWatchStop` (`run(until:_:finished:)`, or a cancelled task reading
/// `reports(documents:options:isKnownExtension:)`), or on SIGINT or SIGTERM
/// (`run(_:finished:)`, for a program's main thread).
public final class InboxWatcher {
    /// The processor each pass runs; its Inbox is the one watched.
    public let processor: InboxProcessor

    /// Makes a watcher for `processor`'s Inbox; nothing is watched until
    /// `run(_:finished:)`.
    public init(processor: InboxProcessor) { self.processor = processor }

    /// Watches until SIGINT or SIGTERM arrives and returns its number.
    /// `observe` hears each pass's events and `finished` each pass's summary.
    ///
    /// For a program's main thread: it blocks both signals in the calling
    /// thread while it runs (restoring its mask after), and reads them from
    /// a signalfd. A signal reaches it only when no other thread of the
    /// process accepts it; a library's host should use `run(until:_:finished:)`.
    public func run(
        _ observe: (InboxProcessor.Event) -> Void,
        finished: (InboxProcessor.Summary) -> Void
    ) throws(InboxProcessor.Failure) -> Int32 {
        let failure = { (error: SystemError) in
            InboxProcessor.Failure.system(
                SystemError(error.code, call: "signalfd"), path: "signals", reason: error.description)
        }
        return try TerminationSignals.wait(failure: failure) {
            (descriptor, stoppingSignal) throws(InboxProcessor.Failure) in
            try watch(waitingOn: descriptor, observe, finished: finished) { stoppingSignal() != nil }
        }
    }

    /// Watches until `stop` is stopped (from any thread or task), then
    /// returns once the pass in progress is done. `observe` hears each
    /// pass's events and `finished` each pass's summary. Changes no signal
    /// mask or action beyond what `InboxProcessor.run` documents.
    public func run(
        until stop: InboxWatchStop, _ observe: (InboxProcessor.Event) -> Void,
        finished: (InboxProcessor.Summary) -> Void
    ) throws(InboxProcessor.Failure) {
        try watch(waitingOn: stop.descriptor, observe, finished: finished) { stop.isStopped }
    }

    /// The watch itself: a pass, then a wait for a change in the Inbox, for
    /// the retry time of items still settling, or for `wake` to become
    /// readable, when `shouldStop` decides.
    private func watch(
        waitingOn wake: Int32, _ observe: (InboxProcessor.Event) -> Void,
        finished: (InboxProcessor.Summary) -> Void, shouldStop: () -> Bool
    ) throws(InboxProcessor.Failure) {
        let notify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard notify >= 0 else {
            let error = SystemError.current("inotify_init1")
            throw .system(error, path: processor.inboxPath, reason: "cannot watch: \(SystemError(error.code))")
        }
        defer { close(notify) }

        let inboxPath = processor.inboxPath
        let parentPath = InboxProcessor.split(inboxPath).folder
        guard inotify_add_watch(notify, parentPath, UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)) >= 0 else {
            throw .current("cannot watch", "inotify_add_watch", path: parentPath)
        }
        let inboxMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_ONLYDIR | IN_DONT_FOLLOW)
        while true {
            // Watch the Inbox before the pass, so nothing arriving during it is missed.
            _ = inotify_add_watch(notify, inboxPath, inboxMask)
            var retryAfter: Double? = nil
            let summary = try processor.run { event in
                if case .item(let report) = event, case .waiting(let reason) = report.outcome {
                    let wait = processor.options.settle.retryDelay(after: reason)
                    retryAfter = min(retryAfter ?? wait, wait)
                }
                observe(event)
            }
            finished(summary)
            var fds = [
                pollfd(fd: notify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let timeout = retryAfter.map { Int32(min($0 * 1000, 3_600_000).rounded(.up)) } ?? -1
            let ready = poll(&fds, 2, timeout)
            if ready < 0 && errno != EINTR {
                throw .current("cannot wait for changes", "poll", path: inboxPath)
            }
            if fds[1].revents & Int16(POLLIN) != 0, shouldStop() { return }
            if fds[0].revents & Int16(POLLIN) != 0 { Self.drain(notify) }
        }
    }

    /// What a watch through `reports` tells: each event of a pass, then
    /// the pass's summary.
    public enum Report: Sendable {
        /// An event of the pass in progress.
        case event(InboxProcessor.Event)
        /// A pass ended, with its counts.
        case passFinished(InboxProcessor.Summary)
    }

    /// Watches the Inbox of `documents` on a thread of its own and reports
    /// each event and each pass's summary, in order, as an asynchronous
    /// sequence. Cancelling the task that reads it (or dropping the
    /// sequence) stops the watch once the pass in progress is done; a
    /// failure to watch ends the sequence with that error
    /// (`InboxProcessor.Failure`). Reports are buffered until read.
    public static func reports(
        documents: String, options: InboxProcessor.Options = .init(),
        isKnownExtension: @escaping @Sendable (ArraySlice<UInt8>) -> Bool
    ) -> AsyncThrowingStream<Report, any Error> {
        AsyncThrowingStream { continuation in
            let stop: InboxWatchStop
            do throws(SystemError) { stop = try InboxWatchStop() } catch {
                continuation.finish(
                    throwing: InboxProcessor.Failure.system(
                        SystemError(error.code, call: "eventfd"), path: "eventfd", reason: error.description))
                return
            }
            continuation.onTermination = { _ in stop.stop() }
            startThread {
                let processor = InboxProcessor(
                    documents: documents, options: options, isKnownExtension: isKnownExtension)
                do {
                    try InboxWatcher(processor: processor).run(until: stop) {
                        continuation.yield(.event($0))
                    } finished: {
                        continuation.yield(.passFinished($0))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
    }

    private static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }
}

extension InboxProcessor {
    /// One pass over the Inbox of `documents` on a thread of its own, its
    /// events and then its summary (`InboxWatcher.Report.passFinished`) as
    /// an asynchronous sequence, for code that runs in a task. A pass is
    /// never stopped in the middle: cancelling the reading task stops the
    /// reports, and the pass finishes its items. A failure of the pass
    /// ends the sequence with that `InboxProcessor.Failure`.
    public static func reports(
        documents: String, options: Options = .init(),
        isKnownExtension: @escaping @Sendable (ArraySlice<UInt8>) -> Bool
    ) -> AsyncThrowingStream<InboxWatcher.Report, any Error> {
        AsyncThrowingStream { continuation in
            startThread {
                let processor = InboxProcessor(
                    documents: documents, options: options, isKnownExtension: isKnownExtension)
                do {
                    let summary = try processor.run { continuation.yield(.event($0)) }
                    continuation.yield(.passFinished(summary))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
    }
}

/// Stops a watch from any thread or task: `InboxWatcher.run(until:_:finished:)`
/// returns once the pass in progress is done after `stop()` (defined in
/// `SystemBase`, which `FolderWatching` shares).
public typealias InboxWatchStop = WatchStop
