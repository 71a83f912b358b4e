import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A folder made for one test in the system's temporary folder (or `base`),
/// under a name no other run can have, and removed with everything in it
/// when released.
public final class TemporaryFolder: @unchecked Sendable {
    /// The folder's absolute path, without a trailing `/`.
    public let path: String

    /// Makes `BASE/PREFIX-XXXXXX` with `mkdtemp`.
    public init(_ prefix: String, base: String = NSTemporaryDirectory()) {
        var template = Array((base.hasSuffix("/") ? base : base + "/").utf8) + Array("\(prefix)-XXXXXX".utf8) + [0]
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { mkdtemp($0.baseAddress!) }
        }
        precondition(made != nil, "mkdtemp in \(base) failed: \(String(cString: strerror(errno)))")
        path = String(decoding: template.dropLast(), as: UTF8.self)
    }

    /// Copies the program at `source` to `relative` in the folder (mode 0755).
    public func copyProgram(_ source: String, to relative: String) throws {
        try Self.create(path(relative), Array(try Data(contentsOf: URL(fileURLWithPath: source))), mode: 0o755)
    }

    /// Writes a new file through a descriptor opened close-on-exec: a
    /// process another test's thread starts meanwhile would otherwise keep
    /// it open for writing, and running the file (a program, a script)
    /// would fail with ETXTBSY ("Text file busy").
    static func create(_ path: String, _ bytes: [UInt8], mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            done += n
        }
    }

    deinit {
        // Folders a test made read-only are opened up first, so that nothing is left behind.
        if let walker = FileManager.default.enumerator(atPath: path) {
            for case let relative as String in walker { chmod(path + "/" + relative, 0o755) }
        }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The absolute path of `relative` in the folder.
    public func path(_ relative: String) -> String { relative.isEmpty ? path : path + "/" + relative }

    /// Makes `relative` and the folders above it.
    public func makeFolder(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
    }

    /// Writes `bytes` to `relative`, making the folders above it.
    public func write(_ relative: String, bytes: [UInt8]) throws {
        let full = path(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Self.create(full, bytes, mode: 0o644)
    }

    /// Writes `text` (UTF-8) to `relative`, making the folders above it.
    public func write(_ relative: String, _ text: String) throws {
        try write(relative, bytes: Array(text.utf8))
    }
}
