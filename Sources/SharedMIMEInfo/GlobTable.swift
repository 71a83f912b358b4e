#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The globs of one layer, indexed the way shared-mime-info looks names up:
/// literal names, then the longest matching `*suffix`, then other patterns.
struct GlobTable: Sendable {
    struct Entry: Sendable {
        var mimeType: String
        var weight: Int
        var caseSensitive: Bool
    }

    /// Literal pattern -> its first entry.
    private var literals: [[UInt8]: Entry] = [:]
    /// Suffix (the pattern without its `*`) -> entries in source order.
    private var suffixes: [[UInt8]: [Entry]] = [:]
    private var longestSuffix = 0
    private var patterns: [(pattern: String, entry: Entry)] = []

    init(_ globs: [GlobRule]) {
        for glob in globs {
            let entry = Entry(mimeType: glob.mimeType, weight: glob.weight, caseSensitive: glob.caseSensitive)
            switch glob.kind {
            case .literal:
                let key = Array(glob.pattern.utf8)
                if literals[key] == nil { literals[key] = entry }
            case .suffix:
                let key = Array(glob.pattern.utf8.dropFirst())
                suffixes[key, default: []].append(entry)
                longestSuffix = max(longestSuffix, key.count)
            case .pattern:
                patterns.append((glob.pattern, entry))
            }
        }
    }

    /// The type a literal glob gives `name`; case-sensitive globs count only
    /// when `caseSensitiveCheck` is set (the name as given, not lower-cased).
    func literal(_ name: [UInt8], caseSensitiveCheck: Bool) -> Entry? {
        guard let entry = literals[name], caseSensitiveCheck || !entry.caseSensitive else { return nil }
        return entry
    }

    /// The entries of the longest suffix of `name` that has any usable entry.
    func suffix(_ name: [UInt8], caseSensitiveCheck: Bool) -> [Entry] {
        var start = max(0, name.count - longestSuffix)
        while start < name.count {
            // Suffixes start on a UTF-8 character boundary.
            if name[start] & 0xC0 != 0x80, let entries = suffixes[Array(name[start...])] {
                let usable = entries.filter { caseSensitiveCheck || !$0.caseSensitive }
                if !usable.isEmpty { return usable }
            }
            start += 1
        }
        return []
    }

    /// Every other pattern that matches `name` (`fnmatch(3)`, no flags).
    func patternMatches(_ name: String, caseSensitiveCheck: Bool, limit: Int) -> [Entry] {
        var result: [Entry] = []
        for (pattern, entry) in patterns where caseSensitiveCheck || !entry.caseSensitive {
            if result.count >= limit { break }
            if fnmatch(pattern, name, 0) == 0 { result.append(entry) }
        }
        return result
    }
}
