#if canImport(Glibc)
import Glibc
#endif

/// An errno value with the text the C library gives for it.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32
    public init(_ code: Int32) { self.code = code }
    /// The current errno.
    static var current: SystemError { SystemError(errno) }
    public var description: String { String(cString: strerror(code)) }
}
