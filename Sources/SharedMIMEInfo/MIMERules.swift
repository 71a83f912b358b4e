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

    /// The pattern; lower-case for a case-insensitive glob, which is matched against the lower-cased name.
    public var pattern: String
    /// The type a matching name implies, as the source spells it.
    public var mimeType: String
    /// 0–100; 50 when the source gives none.
    public var weight: Int
    /// A case-sensitive glob matches only the exact case (`*.C` is C++).
    public var caseSensitive: Bool

    /// A glob of `mimeType`, of weight 50 and case-insensitive unless given.
    public init(pattern: String, mimeType: String, weight: Int = 50, caseSensitive: Bool = false) {
        self.pattern = pattern
        self.mimeType = mimeType
        self.weight = weight
        self.caseSensitive = caseSensitive
    }

    /// How the pattern is matched, from where it has `*`, `?`, `[` or `\`.
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
    /// The type of data the rule matches.
    public var mimeType: String
    /// 0–100; 50 when the source gives none. A match of 80 or more beats a file name.
    public var priority: Int
    /// The top-level matchlets; the rule matches when any of them does.
    public var matchlets: [Matchlet]

    /// A rule giving `mimeType` at `priority` (50 unless given) when any of `matchlets` matches.
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
    /// The first offset `value` is looked for at.
    public var rangeStart: Int
    /// How many consecutive offsets from `rangeStart` are tried; at least 1.
    public var rangeLength: Int
    /// The bytes to find; numbers are already laid out in their width and byte order.
    public var value: [UInt8]
    /// ANDed with both `value` and the data before they are compared, as long as `value`; nil compares every bit.
    public var mask: [UInt8]?
    /// Matchlets of which one must match too; empty when this comparison alone decides.
    public var children: [Matchlet]

    /// A matchlet; a `rangeLength` below 1 is taken as 1.
    public init(rangeStart: Int, rangeLength: Int = 1, value: [UInt8], mask: [UInt8]? = nil, children: [Matchlet] = [])
    {
        self.rangeStart = rangeStart
        self.rangeLength = max(1, rangeLength)
        self.value = value
        self.mask = mask
        self.children = children
    }

    /// True when `value` (under `mask`) occurs at some offset of the range in `data` and, if there are
    /// children, one of them matches too. An empty `value` never matches.
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
    /// The type of a folder the rule matches, usually `x-content/*`.
    public var mimeType: String
    /// 0–100; 50 when the source gives none. Higher priorities are listed first.
    public var priority: Int
    /// The top-level path tests; the rule matches when any of them does.
    public var matches: [TreeMatch]

    /// A rule giving `mimeType` at `priority` (50 unless given) when any of `matches` matches.
    public init(mimeType: String, priority: Int = 50, matches: [TreeMatch]) {
        self.mimeType = mimeType
        self.priority = priority
        self.matches = matches
    }
}

/// One path test of a tree rule; children must match too (AND), siblings are OR.
public struct TreeMatch: Sendable, Equatable {
    /// What the object at a path must be (the `type` of a `<treematch>`).
    public enum ObjectKind: String, Sendable, Equatable {
        /// A regular file, or a symbolic link to one.
        case file
        /// A directory, or a symbolic link to one.
        case directory
        /// A symbolic link, whatever it points to.
        case link
        /// Anything: only that the path exists counts.
        case any
    }

    /// The path to test, relative to the folder examined.
    public var path: String
    /// What the object at `path` must be.
    public var kind: ObjectKind
    /// Whether the components of `path` must match in case; otherwise each is found case-insensitively.
    public var matchCase: Bool
    /// Whether the object must be executable by the current user.
    public var executable: Bool
    /// Whether the object must be non-empty: a directory with entries, or a file of nonzero size.
    public var nonEmpty: Bool
    /// The file at `path` must be of this MIME type (by its name).
    public var mimeType: String?
    /// Tests of which one must match too; empty when this test alone decides.
    public var children: [TreeMatch]

    /// A test of `path`; by default of any kind, case-insensitive and with no further condition.
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
