import SystemBase
import UniformTypes

/// The scheme of a URL (`https`, `mailto`, `ssh`): RFC 3986's letter
/// followed by letters, digits, `+`, `-` and `.`, kept in lower case, as GIO
/// and Launch Services compare schemes.
///
/// Desktop entries claim a scheme as the MIME type `x-scheme-handler/NAME`;
/// app bundles as `CFBundleURLSchemes`. Both name the scheme's type: the
/// declared type with the `public.url-scheme` tag `NAME`, else its dynamic
/// type.
public struct URLScheme: Hashable, Sendable, CustomStringConvertible {
    /// The scheme, lower case.
    public let name: String

    /// The MIME type prefix desktop entries and `mimeapps.list` use.
    public static let handlerMIMEPrefix = "x-scheme-handler/"

    /// A scheme name (without the colon); nil when it is not one.
    public init?(_ name: String) {
        guard Self.isSchemeSyntax(name.utf8[...]) else { return nil }
        self.name = name.asciiLowercased
    }

    /// The scheme of `text` written as a URL (`https://example.org`,
    /// `mailto:me@example.org`, `news:`): a scheme and a colon at the start,
    /// as GIO reads a command-line argument. Nil for anything else; an
    /// absolute path is never a URL.
    public init?(urlString text: String) {
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        self.init(String(decoding: bytes[..<colon], as: UTF8.self))
    }

    /// The scheme a `x-scheme-handler/NAME` MIME type stands for (any case).
    public init?(handlerMIMEType mime: String) {
        let prefix = Self.handlerMIMEPrefix.utf8
        let bytes = mime.utf8
        guard bytes.count > prefix.count,
            zip(bytes, prefix).allSatisfy({ $0.asciiLowercased == $1 })
        else { return nil }
        self.init(String(decoding: bytes.dropFirst(prefix.count), as: UTF8.self))
    }

    /// `x-scheme-handler/NAME`.
    public var handlerMIMEType: String { Self.handlerMIMEPrefix + name }

    /// The scheme's name, lower case.
    public var description: String { name }

    /// The scheme's type: the first declared type with the
    /// `public.url-scheme` tag `name`, else the dynamic type for that tag
    /// (conforming to nothing, as Apple's `conformingTo: nil` gives).
    public func type(in registry: TypeRegistry) -> UniformType {
        registry.type(tag: name, tagClass: .urlScheme, conformingTo: nil)
            ?? registry.dynamicType(tag: name, tagClass: .urlScheme)
    }

    /// Whether a type is a URL scheme's: it has a `public.url-scheme` tag.
    public static func isSchemeType(_ type: UniformType) -> Bool {
        !type.tags(.urlScheme).isEmpty
    }

    private static func isSchemeSyntax(_ bytes: Substring.UTF8View) -> Bool {
        guard let first = bytes.first, isLetter(first) else { return false }
        return bytes.dropFirst().allSatisfy {
            isLetter($0) || ($0 >= 48 && $0 <= 57) || $0 == 43 || $0 == 45 || $0 == 46
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 97 && (byte | 0x20) <= 122 }
}

/// Something to open: a local file or a URL.
public enum OpenTarget: Sendable, Equatable {
    /// An absolute path.
    case file(String)
    /// A URL that is not a local file's, as given.
    case url(String, scheme: URLScheme)

    /// The path or the URL, as a program's argument.
    public var argument: String {
        switch self {
        case .file(let path): path
        case .url(let url, _): url
        }
    }

    /// Why a `file:` URL names no local path. Only `file:///PATH`,
    /// `file://localhost/PATH` and `file:/PATH` do.
    public struct FileURLProblem: Error, Sendable, CustomStringConvertible {
        /// What kind of problem it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// The text is not a `file:` URL.
            case notFileURL
            /// The URL has no absolute path (`file:PATH`, or nothing after the host).
            case missingPath
            /// The URL names a file on another host than this machine.
            case remoteHost
            /// A `%` is not followed by two hexadecimal digits.
            case invalidEscape
            /// The path holds an encoded NUL byte (`%00`), which no path can.
            case nulByte
            /// The decoded path is not UTF-8.
            case notUTF8
        }

        /// What kind of problem it is.
        public var code: Code
        /// What is wrong with the URL, for a person to read.
        public var description: String
    }

    /// The path a `file:` URL names, percent escapes decoded. Throws for a
    /// URL on another host, without a path, with a bad escape, or whose path
    /// holds a NUL byte.
    public static func localPath(fileURL text: String) throws(FileURLProblem) -> String {
        guard URLScheme(urlString: text)?.name == "file" else {
            throw FileURLProblem(code: .notFileURL, description: "is not a file: URL")
        }
        var rest = Substring(text.utf8.dropFirst(5))
        guard rest.hasPrefix("//") else {
            guard rest.hasPrefix("/") else {
                throw FileURLProblem(
                    code: .missingPath, description: "a file: URL needs an absolute path (file:///PATH)")
            }
            return try decode(rest)
        }
        rest = rest.dropFirst(2)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let host = rest[..<slash]
        guard host.isEmpty || host.lowercased() == "localhost" else {
            throw FileURLProblem(
                code: .remoteHost, description: "names a file on host \"\(host)\", not on this machine")
        }
        guard slash < rest.endIndex else {
            throw FileURLProblem(code: .missingPath, description: "a file: URL needs a path after the host")
        }
        return try decode(rest[slash...])
    }

    private static func decode(_ text: Substring) throws(FileURLProblem) -> String {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        func hex(_ byte: UInt8?) -> UInt8? {
            switch byte {
            case let b? where b >= 48 && b <= 57: b - 48
            case let b? where (b | 0x20) >= 97 && (b | 0x20) <= 102: (b | 0x20) - 87
            default: nil
            }
        }
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = hex(iterator.next()), let low = hex(iterator.next()) else {
                throw FileURLProblem(
                    code: .invalidEscape, description: "a \"%\" not followed by two hexadecimal digits")
            }
            let decoded = high << 4 | low
            if decoded == 0 {
                throw FileURLProblem(code: .nulByte, description: "the path holds an encoded NUL byte (%00)")
            }
            bytes.append(decoded)
        }
        guard let path = String(validating: bytes, as: UTF8.self) else {
            throw FileURLProblem(code: .notUTF8, description: "the decoded path is not UTF-8")
        }
        return path
    }
}

extension OpenTarget {
    /// What a command-line argument names, read as GIO reads one: a `file:`
    /// URL is its local path, any other text that starts with a scheme and
    /// a colon (`https://…`, `mailto:…`) is a URL, and anything else is a
    /// path, made absolute against `directory`. Write `./a:b` for a file
    /// whose name looks like a URL. A path's `.` and `..` are resolved by
    /// its text, as GIO does.
    public static func commandLineArgument(_ text: String, directory: String) throws(FileURLProblem) -> OpenTarget {
        if let scheme = URLScheme(urlString: text) {
            if scheme.name == "file" { return .file(lexicallyNormalized(try localPath(fileURL: text))) }
            return .url(text, scheme: scheme)
        }
        if text.utf8.first == UInt8(ascii: "/") { return .file(lexicallyNormalized(text)) }
        return .file(lexicallyNormalized((directory == "/" ? "" : directory) + "/" + text))
    }
}

extension OpenTarget {
    /// `path` (absolute) with its `.` and `..` components and repeated
    /// slashes removed, by its text alone, as GLib's
    /// `g_canonicalize_filename` makes the path of a command-line argument:
    /// no link is followed, so `a/link/..` is `a`; `..` at the root stays
    /// there, a trailing slash goes, and a path that starts with exactly
    /// two slashes keeps them (POSIX leaves `//` to the system).
    static func lexicallyNormalized(_ path: String) -> String {
        let slash = UInt8(ascii: "/")
        let bytes = Array(path.utf8)
        var leading = 0
        while leading < bytes.count && bytes[leading] == slash { leading += 1 }
        var components: [ArraySlice<UInt8>] = []
        for component in bytes[leading...].split(separator: slash) {
            if component.elementsEqual(".".utf8) { continue }
            if component.elementsEqual("..".utf8) {
                if !components.isEmpty { components.removeLast() }
                continue
            }
            components.append(component)
        }
        var result: [UInt8] = leading == 2 ? [slash, slash] : [slash]
        for (index, component) in components.enumerated() {
            if index > 0 { result.append(slash) }
            result += component
        }
        return String(decoding: result, as: UTF8.self)
    }
}
