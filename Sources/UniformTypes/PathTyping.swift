#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The type of a path from its name and, when it exists, what the file
/// system says it is (folder, link, pipe, device). File contents are not read.
public struct PathTyping: Sendable {
    /// How the answer was reached.
    public enum Basis: String, Sendable {
        /// A filename extension claimed by a declared type.
        case name
        /// No claimed extension; the name's last extension, as a dynamic type,
        /// or plain data for a name without one.
        case unknownName = "unknown-name"
        /// The file system's own kind (folder, symbolic link, pipe, device).
        case fileSystem = "file-system"
    }

    public struct Result: Sendable {
        public var type: UTType
        public var basis: Basis
        /// The extension that decided, if any (`tar.gz`, `jpg`).
        public var matchedExtension: String?
    }

    public let registry: TypeRegistry

    public init(registry: TypeRegistry) { self.registry = registry }

    /// The last path component, ignoring trailing slashes.
    public static func fileName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        if let slash = trimmed.lastIndex(of: "/"), trimmed != "/" { return String(trimmed[trimmed.index(after: slash)...]) }
        return String(trimmed)
    }

    /// The candidate extensions of a name, longest first: `a.tar.gz` gives
    /// `tar.gz`, `gz`. A leading dot starts no extension (`.profile` has none).
    public static func extensions(of name: String) -> [String] {
        let bytes = Array(name.utf8)
        var result: [String] = []
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: ".") && i > 0 && i + 1 < bytes.count {
            if bytes[i - 1] == UInt8(ascii: ".") { continue }
            result.append(String(decoding: bytes[(i + 1)...], as: UTF8.self))
        }
        return result
    }

    /// The type a file name implies: the longest extension a declared type
    /// claims (conforming to `conformingTo`, `public.data` by default) wins.
    public func type(forName name: String, conformingTo supertype: UTType? = nil) -> Result {
        let filter = supertype ?? registry.declaredType("public.data")
        let candidates = Self.extensions(of: name)
        for ext in candidates {
            let type = registry.types(tag: ext, tagClass: .filenameExtension, conformingTo: filter)[0]
            if type.isDeclared { return Result(type: type, basis: .name, matchedExtension: ext) }
        }
        if let last = candidates.last, let type = registry.type(filenameExtension: last, conformingTo: filter) {
            return Result(type: type, basis: .unknownName, matchedExtension: last)
        }
        let data = registry.declaredType("public.data")
            ?? registry.dynamicType(tag: name, tagClass: .filenameExtension)
        return Result(type: data, basis: .unknownName, matchedExtension: nil)
    }

    /// The type of `path`: for an existing folder, a package type its
    /// extension names or `public.folder`; for a symbolic link (not followed),
    /// a FIFO, socket or device, that kind; otherwise the name's type.
    public func type(forPath path: String) -> Result {
        var info = stat()
        guard lstat(path, &info) == 0 else { return type(forName: Self.fileName(of: path)) }
        func kind(_ identifier: String) -> Result? {
            registry.declaredType(identifier).map { Result(type: $0, basis: .fileSystem, matchedExtension: nil) }
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            if let package = registry.declaredType("com.apple.package") {
                let named = type(forName: Self.fileName(of: path), conformingTo: package)
                if named.basis == .name { return named }
            }
            return kind("public.folder") ?? kind("public.directory") ?? type(forName: Self.fileName(of: path))
        case S_IFLNK: return kind("public.symlink") ?? type(forName: Self.fileName(of: path))
        case S_IFIFO: return kind("public.named-pipe") ?? type(forName: Self.fileName(of: path))
        case S_IFSOCK: return kind("public.socket") ?? type(forName: Self.fileName(of: path))
        case S_IFCHR: return kind("public.character-special") ?? type(forName: Self.fileName(of: path))
        case S_IFBLK: return kind("public.block-special") ?? type(forName: Self.fileName(of: path))
        default: return type(forName: Self.fileName(of: path))
        }
    }
}
