#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A system call that failed: which call, on which path, and the errno it
/// left, with the C library's text for it.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The errno value.
    public let code: Int32
    /// The call that failed (`open`, `rename`), when named.
    public let call: String?
    /// The path the call was given, when there was one.
    public let path: String?

    public init(_ code: Int32, call: String? = nil, path: String? = nil) {
        self.code = code
        self.call = call
        self.path = path
    }

    /// The current errno, unnamed: for messages that say themselves what
    /// was being done.
    public static var current: SystemError { SystemError(errno) }

    /// The current errno, left by `call` on `path`.
    public static func current(_ call: String, path: String? = nil) -> SystemError {
        SystemError(errno, call: call, path: path)
    }

    /// The C library's text for the errno: "No such file or directory".
    public var reason: String { String(cString: strerror(code)) }

    /// `PATH: CALL: REASON`, leaving out what is not known.
    public var description: String {
        (path.map { $0 + ": " } ?? "") + (call.map { $0 + ": " } ?? "") + reason
    }
}
