import Foundation
import SystemBase
import Testing

/// The one place system calls are retried, checked and described.
@Suite struct SystemCallTests {
    @Test func interruptedCallsAreRetriedAndOtherFailuresReturned() throws {
        var calls = 0
        let value = retryingInterrupts { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(value == 7 && calls == 3)

        calls = 0
        let failed = retryingInterrupts { () -> Int32 in
            calls += 1
            errno = ENOENT
            return -1
        }
        #expect(failed == -1 && calls == 1 && errno == ENOENT)
    }

    @Test func valueOrErrnoNamesTheCallAndPath() {
        #expect(throws: SystemError(ENOENT, call: "open", path: "/nonexistent/x")) {
            try valueOrErrno("open", path: "/nonexistent/x") { open("/nonexistent/x", O_RDONLY) }
        }
        // Not retried when asked not to: the interruption is the answer.
        var calls = 0
        #expect(throws: SystemError(EINTR, call: "poll")) {
            try valueOrErrno("poll", retryOnInterrupt: false) { () -> Int32 in
                calls += 1
                errno = EINTR
                return -1
            }
        }
        #expect(calls == 1)
    }

    @Test func writeAllWritesEverythingOrSaysWhy() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        // More than a pipe holds at once, read on another thread.
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let readEnd = ends[0]
        let reader = Thread.detachNewThreadWithResult {
            FileHandle(fileDescriptor: readEnd, closeOnDealloc: true).readDataToEndOfFile()
        }
        try writeAll(ends[1], bytes)
        close(ends[1])
        #expect(Array(reader.value()) == bytes)

        // A descriptor that can never be open: a closed one's number may be
        // reused meanwhile by another test's open, and written into.
        #expect(throws: SystemError(EBADF, call: "write", path: "closed")) {
            try writeAll(-1, [1, 2, 3], path: "closed")
        }
    }

    @Test func statusNamesTheKindOfFile() throws {
        let folder = NSTemporaryDirectory() + "uti-stat-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        FileManager.default.createFile(atPath: folder + "/file", contents: Data("x".utf8))
        symlink("file", folder + "/link")
        mkfifo(folder + "/fifo", 0o600)

        #expect(try stat(path: folder + "/file").kind == .regular)
        #expect(try stat(path: folder + "/file").isRegularFile)
        #expect(try stat(path: folder).isDirectory)
        #expect(try stat(path: folder + "/link").kind == .regular)
        #expect(try stat(path: folder + "/link", followingLinks: false).isSymbolicLink)
        #expect(try stat(path: folder + "/fifo", followingLinks: false).kind == .fifo)
        #expect(try stat(path: "/dev/null").kind == .characterDevice)
        #expect(try stat(path: folder + "/file").permissions == 0o644 & ~umaskValue())
        #expect(throws: SystemError(ENOENT, call: "lstat", path: folder + "/none")) {
            try stat(path: folder + "/none", followingLinks: false)
        }
        let fd = open(folder + "/file", O_RDONLY)
        defer { close(fd) }
        #expect(try stat(descriptor: fd).st_size == 1)
    }

    @Test func childExitReadsAsAShellDoes() throws {
        var pid = pid_t()
        let words: [String] = ["/bin/sh", "-c", "exit 3"]
        let argv = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        #expect(posix_spawn(&pid, "/bin/sh", nil, nil, argv, nil) == 0)
        let exited = try waitForChild(pid)
        #expect(exited.code == 3 && exited.signal == nil && exited.shellStatus == 3)

        let killed = ChildExit(status: SIGTERM)
        #expect(killed.signal == SIGTERM && killed.code == nil && killed.shellStatus == 128 + SIGTERM)
        #expect(throws: SystemError(ECHILD, call: "waitpid")) { try waitForChild(pid) }
    }

    @Test(arguments: [
        ("Public.JPEG", "public.jpeg"), ("image/PNG", "image/png"), ("already", "already"),
        // Only ASCII letters change: identifiers and tags are not folded by locale.
        ("CAFÉ", "cafÉ"), ("İx", "İx"), ("Ärger", "Ärger"), ("", ""),
    ])
    func asciiLowercasingChangesOnlyASCIILetters(text: String, lowered: String) {
        #expect(text.asciiLowercased == lowered)
        #expect(text.utf8.map(\.asciiLowercased) == Array(lowered.utf8))
    }
}

private func umaskValue() -> mode_t {
    let value = umask(0)
    umask(value)
    return value
}

extension Thread {
    /// Runs `body` on a new thread; `value()` waits for its result.
    fileprivate static func detachNewThreadWithResult<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Pending<T> {
        let pending = Pending<T>()
        Thread.detachNewThread { pending.set(body()) }
        return pending
    }
}

private final class Pending<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: T?
    func set(_ value: T) {
        result = value
        done.signal()
    }
    func value() -> T {
        done.wait()
        return result!
    }
}
