import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a shared-mime-info `mime.cache` (format 1.1 or 1.2, big-endian,
/// memory-mapped). Every offset and count is checked against the file's
/// size, and recursion through the suffix tree and matchlets is bounded, so
/// a damaged cache gives an error, never a crash.
public enum MIMECacheReader {
    /// A `mime.cache` that could not be read, and why.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What kind of failure it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// There is no cache file.
            case notFound
            /// The cache may not be read by this process.
            case permissionDenied
            /// The path names a folder, a FIFO, a socket or a device.
            case notRegularFile
            /// The cache is larger than `MIMECacheReader.sizeLimit`.
            case tooLarge
            /// Reading the file failed otherwise: `systemError` says how.
            case systemCallFailed
            /// The cache is of a format version other than 1.1 and 1.2.
            case unsupportedVersion
            /// The cache is damaged: too short, an offset or count out of
            /// range, a string or MIME type that is not one, nodes that loop.
            case malformed
        }

        /// The cache file.
        public var path: String
        /// Byte offset of the problem, when there is one.
        public var offset: Int?
        /// What is wrong.
        public var reason: String
        /// What kind of failure it is.
        public var code: Code
        /// The system call that failed, with its path and errno, when one did.
        public var systemError: SystemError?
        /// `path@offset N: reason`, or `path: reason` without an offset.
        public var description: String {
            offset.map { "\(path)@offset \($0): \(reason)" } ?? "\(path): \(reason)"
        }

        init(_ code: Code, path: String, offset: Int? = nil, reason: String, systemError: SystemError? = nil) {
            self.code = code
            self.path = path
            self.offset = offset
            self.reason = reason
            self.systemError = systemError
        }

        /// The failure to read the file at all.
        init(_ error: FileContents.ReadError, path: String) {
            let code: Code =
                switch error.code {
                case .notFound: .notFound
                case .permissionDenied: .permissionDenied
                case .isDirectory, .notRegularFile: .notRegularFile
                case .tooLarge: .tooLarge
                case .systemCallFailed: .systemCallFailed
                }
            self.init(code, path: path, reason: error.reason, systemError: error.systemError)
        }
    }

    /// The largest cache accepted (the system one is about 150 KB).
    public static let sizeLimit = 64 << 20

    /// Reads `path` into `layer` (types, aliases, parents, globs, magic and
    /// generic icons). The file is copied into memory first, not mapped: a
    /// cache truncated while it is parsed is then a short read, never a
    /// SIGBUS.
    public static func read(path: String, into layer: inout MIMELayer) throws(Failure) {
        let bytes: [UInt8]
        do {
            bytes = try FileContents.read(path, limit: sizeLimit)
        } catch {
            throw Failure(error, path: path)
        }
        guard bytes.count >= 40 else {
            throw Failure(
                .malformed, path: path, offset: 0, reason: "too short for a mime.cache header (\(bytes.count) bytes)")
        }
        try parse(bytes: bytes, path: path, into: &layer)
    }

    /// Parses cache bytes already in memory.
    public static func parse(bytes: [UInt8], path: String, into layer: inout MIMELayer) throws(Failure) {
        do {
            try bytes.withUnsafeBytes { raw in try parse(raw, into: &layer) }
        } catch let error as CacheError {
            throw Failure(error.code, path: path, offset: error.offset, reason: error.reason)
        } catch {
            throw Failure(.malformed, path: path, reason: "\(error)")
        }
    }

    struct CacheError: Error {
        var offset: Int
        var reason: String
        var code: Failure.Code = .malformed
    }

    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        /// Nodes left to decode; each takes at least 8 bytes in a valid file,
        /// so shared or cyclic offsets cannot make the work grow.
        var budget: Int
        /// The longest string read, in bytes, not counting its terminator.
        static let longestString = 4096

        func u32(_ offset: Int) throws -> Int {
            guard offset >= 0, offset + 4 <= bytes.count else {
                throw CacheError(offset: offset, reason: "offset past the end of the file (\(bytes.count) bytes)")
            }
            return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
        }

        func u16(_ offset: Int) throws -> Int {
            guard offset >= 0, offset + 2 <= bytes.count else {
                throw CacheError(offset: offset, reason: "offset past the end of the file")
            }
            return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        }

        /// A NUL-terminated UTF-8 string.
        func string(_ offset: Int) throws -> String {
            guard offset > 0, offset < bytes.count else {
                throw CacheError(offset: offset, reason: "string offset out of range")
            }
            // Strings are names, globs and namespaces: a cap on their length
            // keeps many entries that share one long run of bytes from making
            // the read quadratic.
            let limit = min(bytes.count, offset + Self.longestString + 1)
            var end = offset
            while end < limit && bytes[end] != 0 { end += 1 }
            guard end < bytes.count else {
                throw CacheError(offset: offset, reason: "string runs past the end of the file")
            }
            guard end < limit else {
                throw CacheError(offset: offset, reason: "string is longer than \(Self.longestString) bytes")
            }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw CacheError(offset: offset, reason: "string is not valid UTF-8")
            }
            return text
        }

        /// A MIME type name: a string that looks like `media/subtype`.
        func mimeType(_ offset: Int) throws -> String {
            let text = try string(offset)
            guard isWellFormedMIMEType(text) else {
                throw CacheError(offset: offset, reason: "\"\(text)\" is not a MIME type")
            }
            return text
        }

        /// Checks that `count` entries of `size` bytes fit from `offset`.
        func table(_ offset: Int, count: Int, entrySize: Int) throws {
            guard count >= 0, offset >= 0, count <= (bytes.count - min(offset, bytes.count)) / entrySize else {
                throw CacheError(offset: offset, reason: "table of \(count) entries does not fit in the file")
            }
        }

        mutating func spend(_ offset: Int) throws {
            budget -= 1
            if budget < 0 { throw CacheError(offset: offset, reason: "nodes are shared or cyclic") }
        }
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer, into layer: inout MIMELayer) throws {
        var c = Cursor(bytes: bytes, budget: bytes.count / 8)
        let major = try c.u16(0), minor = try c.u16(2)
        guard major == 1, minor == 1 || minor == 2 else {
            throw CacheError(
                offset: 0, reason: "unsupported mime.cache version \(major).\(minor) (1.1 and 1.2 are read)",
                code: .unsupportedVersion)
        }
        let aliasList = try c.u32(4), parentList = try c.u32(8), literalList = try c.u32(12)
        let suffixTree = try c.u32(16), globList = try c.u32(20), magicList = try c.u32(24)
        let genericIconList = try c.u32(36)
        var seenTypes: Set<String> = []
        func note(_ type: String) {
            if seenTypes.insert(mimeKey(type)).inserted { layer.types.append(type) }
        }

        // Aliases.
        let aliasCount = try c.u32(aliasList)
        try c.table(aliasList + 4, count: aliasCount, entrySize: 8)
        for i in 0..<aliasCount {
            let entry = aliasList + 4 + 8 * i
            let alias = try c.mimeType(try c.u32(entry))
            let canonical = try c.mimeType(try c.u32(entry + 4))
            layer.aliases[mimeKey(alias)] = canonical
        }

        // Parents.
        let parentCount = try c.u32(parentList)
        try c.table(parentList + 4, count: parentCount, entrySize: 8)
        for i in 0..<parentCount {
            let entry = parentList + 4 + 8 * i
            let type = try c.mimeType(try c.u32(entry))
            let list = try c.u32(entry + 4)
            let n = try c.u32(list)
            try c.table(list + 4, count: n, entrySize: 4)
            var parents: [String] = []
            for j in 0..<n { parents.append(try c.mimeType(try c.u32(list + 4 + 4 * j))) }
            layer.parents[mimeKey(type)] = parents
            note(type)
        }

        // Literal globs.
        var globs: [GlobRule] = []
        let literalCount = try c.u32(literalList)
        try c.table(literalList + 4, count: literalCount, entrySize: 12)
        for i in 0..<literalCount {
            let entry = literalList + 4 + 12 * i
            let rule = try glob(c, pattern: try c.string(try c.u32(entry)), typeAt: entry + 4, flagsAt: entry + 8)
            // `glob-deleteall` is compiled into a literal marker.
            if rule.pattern == "__NOGLOBS__" {
                layer.globsDeleted.insert(mimeKey(rule.mimeType))
                continue
            }
            globs.append(rule)
        }

        // Suffix globs: walk the reverse suffix tree, rebuilding `*suffix`.
        let rootCount = try c.u32(suffixTree)
        let firstRoot = try c.u32(suffixTree + 4)
        var reversed: [Unicode.Scalar] = []
        func walk(_ offset: Int, _ count: Int, depth: Int) throws {
            guard depth < 1024 else { throw CacheError(offset: offset, reason: "suffix tree nested too deeply") }
            try c.table(offset, count: count, entrySize: 12)
            for i in 0..<count {
                let node = offset + 12 * i
                try c.spend(node)
                let character = try c.u32(node)
                if character == 0 {
                    let pattern = "*" + String(String.UnicodeScalarView(reversed.reversed()))
                    globs.append(try glob(c, pattern: pattern, typeAt: node + 4, flagsAt: node + 8))
                    continue
                }
                guard let scalar = Unicode.Scalar(UInt32(truncatingIfNeeded: character)) else {
                    throw CacheError(offset: node, reason: "suffix tree character \(character) is not a Unicode scalar")
                }
                reversed.append(scalar)
                try walk(try c.u32(node + 8), try c.u32(node + 4), depth: depth + 1)
                reversed.removeLast()
            }
        }
        try walk(firstRoot, rootCount, depth: 0)

        // Other patterns.
        let globCount = try c.u32(globList)
        try c.table(globList + 4, count: globCount, entrySize: 12)
        for i in 0..<globCount {
            let entry = globList + 4 + 12 * i
            globs.append(try glob(c, pattern: try c.string(try c.u32(entry)), typeAt: entry + 4, flagsAt: entry + 8))
        }
        for g in globs { note(g.mimeType) }
        layer.globs = globs

        // Magic.
        let matchCount = try c.u32(magicList)
        let firstMatch = try c.u32(magicList + 8)
        try c.table(firstMatch, count: matchCount, entrySize: 16)
        func matchlets(_ offset: Int, _ count: Int, depth: Int) throws -> [Matchlet] {
            guard depth < 64 else { throw CacheError(offset: offset, reason: "matchlets nested too deeply") }
            try c.table(offset, count: count, entrySize: 32)
            var result: [Matchlet] = []
            for i in 0..<count {
                let m = offset + 32 * i
                try c.spend(m)
                let rangeStart = try c.u32(m), rangeLength = try c.u32(m + 4)
                let valueLength = try c.u32(m + 12), valueOffset = try c.u32(m + 16), maskOffset = try c.u32(m + 20)
                guard valueLength > 0, valueOffset + valueLength <= bytes.count,
                    maskOffset == 0 || maskOffset + valueLength <= bytes.count
                else {
                    throw CacheError(offset: m, reason: "matchlet value or mask out of range")
                }
                guard rangeStart <= Int(Int32.max), rangeLength <= Int(Int32.max) else {
                    throw CacheError(offset: m, reason: "matchlet range too large")
                }
                // host16/host32 values are stored big-endian with their word
                // size, which GIO ignores: it compares the bytes as stored,
                // and so does uti (`MagicValueSyntax.numericLayout`).
                let value = Array(bytes[valueOffset..<(valueOffset + valueLength)])
                let mask = maskOffset == 0 ? nil : Array(bytes[maskOffset..<(maskOffset + valueLength)])
                let children = try matchlets(try c.u32(m + 28), try c.u32(m + 24), depth: depth + 1)
                result.append(
                    Matchlet(
                        rangeStart: rangeStart, rangeLength: rangeLength, value: value, mask: mask, children: children))
            }
            return result
        }
        for i in 0..<matchCount {
            let entry = firstMatch + 16 * i
            let priority = try c.u32(entry)
            let type = try c.mimeType(try c.u32(entry + 4))
            let rule = MagicRule(
                mimeType: type, priority: min(priority, 100),
                matchlets: try matchlets(try c.u32(entry + 12), try c.u32(entry + 8), depth: 0))
            // `magic-deleteall` is compiled into a marker rule.
            if rule.matchlets.count == 1, rule.matchlets[0].value == Array("__NOMAGIC__".utf8) {
                layer.magicDeleted.insert(mimeKey(type))
                continue
            }
            layer.magic.append(rule)
            note(type)
        }

        // Generic icons.
        let iconCount = try c.u32(genericIconList)
        try c.table(genericIconList + 4, count: iconCount, entrySize: 8)
        for i in 0..<iconCount {
            let entry = genericIconList + 4 + 8 * i
            let type = try c.mimeType(try c.u32(entry))
            layer.genericIcons[mimeKey(type)] = try c.string(try c.u32(entry + 4))
            note(type)
        }
        for canonical in layer.aliases.values { note(canonical) }
    }

    private static func glob(_ c: Cursor, pattern: String, typeAt: Int, flagsAt: Int) throws -> GlobRule {
        let flags = try c.u32(flagsAt)
        return GlobRule(
            pattern: pattern, mimeType: try c.mimeType(try c.u32(typeAt)),
            weight: min(flags & 0xFF, 100), caseSensitive: flags & 0x100 != 0)
    }
}
