#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A system call that failed: which call, on which path, and the errno it
/// left, with the C library's text for it.
///
/// `code` is the errno itself; `kind` says what it means, for a caller to
/// switch on without naming errno values:
///
/// ```swift
/// switch error.kind {
/// case .notFound: break  // nothing there: nothing to do
/// case .permissionDenied: print("not allowed: \(error)")
/// default: throw error
/// }
/// ```
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What an errno means, as a caller acts on it. `SystemError.kind` maps
    /// errno values to these cases, the one place that does.
    public enum Code: Sendable, Hashable {
        /// Nothing is at the path (`ENOENT`).
        case notFound
        /// The call is not allowed to the process (`EACCES`, `EPERM`).
        case permissionDenied
        /// Something is already at the path (`EEXIST`).
        case alreadyExists
        /// A component of the path, or the path, is not a folder (`ENOTDIR`).
        case notADirectory
        /// The path is a folder where a file was needed (`EISDIR`).
        case isADirectory
        /// The folder is not empty (`ENOTEMPTY`).
        case notEmpty
        /// The two paths are on different file systems (`EXDEV`).
        case crossDevice
        /// The file or device is in use (`EBUSY`, `ETXTBSY`).
        case busy
        /// The call would block, or a lock is held elsewhere (`EAGAIN`, `EWOULDBLOCK`).
        case wouldBlock
        /// A signal interrupted the call (`EINTR`).
        case interrupted
        /// The file system is full, or the user's quota used (`ENOSPC`, `EDQUOT`).
        case noSpace
        /// The file system is mounted read-only (`EROFS`).
        case readOnlyFileSystem
        /// Too many symbolic links, or one not followed (`ELOOP`).
        case symbolicLinkLoop
        /// A name or the path is too long (`ENAMETOOLONG`).
        case nameTooLong
        /// A limit of the process or the system: descriptors, memory (`EMFILE`, `ENFILE`, `ENOMEM`).
        case resourceExhausted
        /// An argument the call refuses (`EINVAL`).
        case invalidArgument
        /// The call or operation is not supported here (`ENOTSUP`, `EOPNOTSUPP`, `ENOSYS`).
        case unsupported
        /// The descriptor is not open, or not for this use (`EBADF`).
        case badDescriptor
        /// The device failed to read or write (`EIO`).
        case ioError
        /// Any other errno: `code` holds it.
        case other
    }

    /// The errno value (`kind` says what it means).
    public let code: Int32
    /// The call that failed (`open`, `rename`), when named.
    public let call: String?
    /// The path the call was given, when there was one.
    public let path: String?

    /// The error `code` (an errno value) left by `call` on `path`, either
    /// of them nil when not known.
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

    /// What the errno means, as a caller acts on it.
    public var kind: Code {
        switch code {
        case ENOENT: .notFound
        case EACCES, EPERM: .permissionDenied
        case EEXIST: .alreadyExists
        case ENOTDIR: .notADirectory
        case EISDIR: .isADirectory
        case ENOTEMPTY: .notEmpty
        case EXDEV: .crossDevice
        case EBUSY, ETXTBSY: .busy
        case EAGAIN, EWOULDBLOCK: .wouldBlock
        case EINTR: .interrupted
        case ENOSPC, EDQUOT: .noSpace
        case EROFS: .readOnlyFileSystem
        case ELOOP: .symbolicLinkLoop
        case ENAMETOOLONG: .nameTooLong
        case EMFILE, ENFILE, ENOMEM: .resourceExhausted
        case EINVAL: .invalidArgument
        case ENOTSUP, EOPNOTSUPP, ENOSYS: .unsupported
        case EBADF: .badDescriptor
        case EIO: .ioError
        default: .other
        }
    }

    /// The C library's text for the errno: "No such file or directory".
    public var reason: String { String(cString: strerror(code)) }

    /// `PATH: CALL: REASON`, leaving out what is not known.
    public var description: String {
        (path.map { $0 + ": " } ?? "") + (call.map { $0 + ": " } ?? "") + reason
    }
}
