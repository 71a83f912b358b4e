import CLinuxCalls
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

/// Watches folders and reports settled changes to their items, typed:
/// added, removed, changed and renamed, each once.
///
/// inotify says where to look; each item is then compared with what was
/// known of it. An added or changed file is reported once it has settled by
/// the rules `InboxProcessor` uses (`SettlePolicy`: unchanged for the
/// interval, and no process has it open for writing); a folder is reported
/// at once, and in a recursive watch it is watched before it is listed, so
/// nothing created in it meanwhile is missed. When events may have been
/// lost (the kernel's queue overflowed) or a watched folder was moved or
/// removed, the folder is listed again and the differences are reported,
/// after a `FolderWatchReport.rescanned`. A file created and removed before
/// it settled is not reported.
public struct FolderWatcher: Sendable {
    /// How to watch.
    public struct Options: Sendable {
        /// Whether subfolders are watched too (each item inside them is
        /// reported); otherwise a subfolder is one item.
        public var recursive = false
        /// When an added or changed file has settled; the inbox's rules.
        public var settle = SettlePolicy()
        /// Whether the items there when the watch begins are reported as
        /// added (`FolderEvent.isInitial`) before any change.
        public var reportsExisting = false
        /// Only items whose type conforms to this one are reported (a
        /// removed item by the type it had, or its name's).
        public var conformingTo: UniformType?
        /// How items are typed (`uti file`'s options).
        public var typing = FileTyping.Options()
        /// Items whose path inside the watched folder matches one of these
        /// are left out: never reported, never read or typed, and a folder
        /// left out is not watched or entered, so nothing inside it is
        /// reported either. By default `IgnorePattern.defaults` (editors',
        /// downloads' and version control's own files); append to keep
        /// them, or set it to `[]` to report everything. An item renamed to a
        /// name left out is reported removed, and one renamed from such a
        /// name added.
        public var ignore: [IgnorePattern] = IgnorePattern.defaults

        /// Told the number of inotify watches held before each report is
        /// made: how tests see which folders are watched.
        package var watchCountBeforeEachReport: (@Sendable (Int) -> Void)?

        /// The defaults: the folders themselves, the inbox's settle rules,
        /// changes only, every type, editors' and version control's own
        /// files left out (`IgnorePattern.defaults`).
        public init() {}
    }

    /// A watch that could not begin or go on: the path and why.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What kind of failure it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// A folder to watch does not exist (or a folder on its path is a file).
            case notFound
            /// A folder to watch may not be read or watched by this process.
            case permissionDenied
            /// A path to watch names something other than a folder.
            case notAFolder
            /// A folder is named twice, or lies inside another one watched
            /// with its subfolders.
            case overlapping
            /// The per-user limit of inotify instances or watches is reached.
            case watchLimitReached
            /// The folder holding a watched folder that went away was moved
            /// or removed too, so its return cannot be seen.
            case parentGone
            /// Another system call failed: `systemError` says which, and why.
            case systemCallFailed
            /// A failure made with `init(path:reason:)`, which gives no code.
            case other
        }

        /// The folder (or `inotify`) concerned.
        public var path: String
        /// Why.
        public var reason: String
        /// What kind of failure it is.
        public var code: Code
        /// The system call that failed, with its path and errno, when one did.
        public var systemError: SystemError?
        /// `PATH: REASON`.
        public var description: String { "\(path): \(reason)" }
        /// A failure at `path` for `reason`, of code `other`.
        public init(path: String, reason: String) {
            self.init(.other, path: path, reason: reason)
        }
        /// A failure of `code` at `path` for `reason`; `systemError` when a
        /// system call failed.
        public init(_ code: Code, path: String, reason: String, systemError: SystemError? = nil) {
            self.code = code
            self.path = path
            self.reason = reason
            self.systemError = systemError
        }

        /// The failure of a system call, `error`, at `path`: `reason` says
        /// what was being done.
        static func system(_ error: SystemError, path: String, reason: String) -> Failure {
            let code: Code =
                switch error.kind {
                case .notFound, .notADirectory: .notFound
                case .permissionDenied: .permissionDenied
                default: .systemCallFailed
                }
            return Failure(code, path: path, reason: reason, systemError: error)
        }
    }

    /// The folders watched, as given (as bytes: a path need not be UTF-8).
    public var folderPaths: [[UInt8]]
    /// How they are watched.
    public var options: Options
    /// How items are typed.
    public var typing: FileTyping

    /// A watcher of `folders`; nothing is watched until `run(until:_:)`.
    public init(folders: [String], options: Options = Options(), typing: FileTyping) {
        self.init(folderPaths: folders.map { Array($0.utf8) }, options: options, typing: typing)
    }

    /// A watcher of the folders at `folderPaths`, given as bytes.
    public init(folderPaths: [[UInt8]], options: Options = Options(), typing: FileTyping) {
        self.folderPaths = folderPaths
        self.options = options
        self.typing = typing
    }

    /// Watches until `stop` is stopped (from any thread or task), handing
    /// each report to `report` in order on the calling thread. Throws when
    /// a folder cannot be watched (missing, not a folder, a watch limit
    /// reached) or the folder holding a removed watched folder is gone too.
    /// Read leases (the writer check) are taken only while it runs, with
    /// SIGIO handled as `InboxProcessor.run` documents.
    public func run(until stop: WatchStop, _ report: (FolderWatchReport) -> Void) throws(Failure) {
        try watch(waitingOn: stop.descriptor, report) { stop.isStopped }
    }

    /// Watches until SIGINT or SIGTERM arrives and returns its number; for a
    /// program's main thread (both signals are blocked in the calling thread
    /// while it runs and read from a signalfd, as `InboxWatcher.run` does).
    public func run(_ report: (FolderWatchReport) -> Void) throws(Failure) -> Int32 {
        let failure = { (error: SystemError) in
            Failure.system(
                SystemError(error.code, call: "signalfd"), path: "signals", reason: error.description)
        }
        return try TerminationSignals.wait(failure: failure) { (descriptor, stoppingSignal) throws(Failure) in
            try watch(waitingOn: descriptor, report) { stoppingSignal() != nil }
        }
    }

    /// The watch: wait for events, the next item to settle, or `wake`.
    private func watch(
        waitingOn wake: Int32, _ report: (FolderWatchReport) -> Void, shouldStop: () -> Bool
    )
        throws(Failure)
    {
        uti_lease_scope_begin()
        defer { uti_lease_scope_end() }
        try withoutActuallyEscaping(report) { (report) throws(Failure) in
            let engine = try WatchEngine(roots: folderPaths, options: options, typing: typing, emit: report)
            try engine.start()
            while true {
                try engine.settleDue()
                var fds = [
                    pollfd(fd: engine.notify.fd, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                ]
                let timeout = engine.nextDelay.map { Int32(min($0 * 1000, 3_600_000).rounded(.up)) } ?? -1
                let ready = poll(&fds, 2, timeout)
                if ready < 0 && errno != EINTR {
                    let error = SystemError.current("poll")
                    throw Failure.system(error, path: "inotify", reason: "cannot wait: \(SystemError(error.code))")
                }
                if fds[1].revents & Int16(POLLIN) != 0, shouldStop() { return }
                if fds[0].revents & Int16(POLLIN) != 0 { try engine.handleEvents() }
            }
        }
    }

    /// Watches on a thread of its own and gives each report, in order, as
    /// an asynchronous sequence. Cancelling the task that reads it (or
    /// dropping the sequence) stops the watch; a failure ends the sequence
    /// with that `Failure`. Reports are buffered until read.
    public func reports() -> AsyncThrowingStream<FolderWatchReport, any Error> {
        stream { $0 }
    }

    /// The changes alone, as an asynchronous sequence: `reports()` without
    /// the readiness and rescan notices.
    public func events() -> AsyncThrowingStream<FolderEvent, any Error> {
        stream { report in
            if case .event(let event) = report { return event }
            return nil
        }
    }

    private func stream<Element: Sendable>(
        _ transform: @escaping @Sendable (FolderWatchReport) -> Element?
    ) -> AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { continuation in
            let stop: WatchStop
            do throws(SystemError) { stop = try WatchStop() } catch {
                continuation.finish(
                    throwing: Failure.system(
                        SystemError(error.code, call: "eventfd"), path: "eventfd", reason: error.description))
                return
            }
            continuation.onTermination = { _ in stop.stop() }
            startThread {
                do {
                    try run(until: stop) { report in
                        if let element = transform(report) { continuation.yield(element) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
    }
}
