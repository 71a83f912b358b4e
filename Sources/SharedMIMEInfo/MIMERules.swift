/// A file-name pattern of shared-mime-info: `*.jpg`, `Makefile`, `README*`.
public struct GlobRule: Sendable, Equatable {
    /// How a pattern is matched, in the order the specification tries them.
    public enum Kind: Sendable, Equatable {
        /// No wildcard: the whole name must equal the pattern.
        case literal
        /// `*` followed by a plain suffix (`*.tar.gz`, `*~`): the longest matching suffix wins.
        case suffix
        /// Any other pattern, matched like `fnmatch(3)`.
        case pattern
    }

    public var pattern: String
    public var mimeType: String
    /// 0–100; 50 when the source gives none.
    public var weight: Int
    /// A case-sensitive glob matches only the exact case (`*.C` is C++).
    public var caseSensitive: Bool

    public init(pattern: String, mimeType: String, weight: Int = 50, caseSensitive: Bool = false) {
        self.pattern = pattern
        self.mimeType = mimeType
        self.weight = weight
        self.caseSensitive = caseSensitive
    }

    public var kind: Kind {
        let special: Set<UInt8> = [UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "["), UInt8(ascii: "\\")]
        let bytes = Array(pattern.utf8)
        if !bytes.contains(where: special.contains) { return .literal }
        if bytes.first == UInt8(ascii: "*"), bytes.count > 1, !bytes.dropFirst().contains(where: special.contains) {
            return .suffix
        }
        return .pattern
    }

    /// The filename extension a `*.ext` glob stands for (`tar.gz` for
    /// `*.tar.gz`); nil for other patterns.
    public var filenameExtension: String? {
        guard kind == .suffix, pattern.hasPrefix("*."), pattern.count > 2 else { return nil }
        return String(pattern.dropFirst(2))
    }
}

/// A content rule: when any of its matchlets matches, the data is of
/// `mimeType` with the rule's priority.
public struct MagicRule: Sendable, Equatable {
    public var mimeType: String
    /// 0–100; 50 when the source gives none. A match of 80 or more beats a file name.
    public var priority: Int
    public var matchlets: [Matchlet]

    public init(mimeType: String, priority: Int = 50, matchlets: [Matchlet]) {
        self.mimeType = mimeType
        self.priority = priority
        self.matchlets = matchlets
    }

    /// True when any top-level matchlet matches `data`.
    public func matches(_ data: UnsafeRawBufferPointer) -> Bool {
        matchlets.contains { $0.matches(data) }
    }

    /// How many leading bytes the rule can look at.
    public var extent: Int { matchlets.map(\.extent).max() ?? 0 }
}

/// One comparison: `value` (under `mask`) at some offset in
/// `rangeStart ..< rangeStart + rangeLength`; then, if it has children, at
/// least one child must match too (children are AND, siblings OR).
public struct Matchlet: Sendable, Equatable {
    public var rangeStart: Int
    public var rangeLength: Int
    public var value: [UInt8]
    public var mask: [UInt8]?
    public var children: [Matchlet]

    public init(rangeStart: Int, rangeLength: Int = 1, value: [UInt8], mask: [UInt8]? = nil, children: [Matchlet] = [])
    {
        self.rangeStart = rangeStart
        self.rangeLength = max(1, rangeLength)
        self.value = value
        self.mask = mask
        self.children = children
    }

    public func matches(_ data: UnsafeRawBufferPointer) -> Bool {
        guard comparesEqual(data) else { return false }
        return children.isEmpty || children.contains { $0.matches(data) }
    }

    private func comparesEqual(_ data: UnsafeRawBufferPointer) -> Bool {
        let count = value.count
        guard count > 0 else { return false }
        var start = rangeStart
        let end = rangeStart + rangeLength
        while start < end {
            if start + count > data.count { return false }
            var equal = true
            if let mask {
                for j in 0..<count where (value[j] & mask[j]) != (data[start + j] & mask[j]) {
                    equal = false
                    break
                }
            } else {
                for j in 0..<count where value[j] != data[start + j] {
                    equal = false
                    break
                }
            }
            if equal { return true }
            start += 1
        }
        return false
    }

    /// The furthest byte this matchlet or its children look at.
    public var extent: Int {
        max(rangeStart + rangeLength - 1 + value.count, children.map(\.extent).max() ?? 0)
    }
}

/// A rule that recognises a directory tree (a mounted volume, a camera card)
/// by the paths inside it.
public struct TreeMagicRule: Sendable, Equatable {
    public var mimeType: String
    public var priority: Int
    public var matches: [TreeMatch]

    public init(mimeType: String, priority: Int = 50, matches: [TreeMatch]) {
        self.mimeType = mimeType
        self.priority = priority
        self.matches = matches
    }
}

/// One path test of a tree rule; children must match too (AND), siblings are OR.
public struct TreeMatch: Sendable, Equatable {
    public enum ObjectKind: String, Sendable, Equatable {
        case file, directory, link, any
    }

    public var path: String
    public var kind: ObjectKind
    public var matchCase: Bool
    public var executable: Bool
    public var nonEmpty: Bool
    /// The file at `path` must be of this MIME type (by its name).
    public var mimeType: String?
    public var children: [TreeMatch]

    public init(
        path: String, kind: ObjectKind = .any, matchCase: Bool = false, executable: Bool = false,
        nonEmpty: Bool = false, mimeType: String? = nil, children: [TreeMatch] = []
    ) {
        self.path = path
        self.kind = kind
        self.matchCase = matchCase
        self.executable = executable
        self.nonEmpty = nonEmpty
        self.mimeType = mimeType
        self.children = children
    }
}
