/// A glob naming paths a watch leaves out, matched on an item's path inside
/// the watched folder (`notes/.plan.md.swp`: no leading `/`, components
/// separated by `/`).
///
/// The dialect, for a pattern and a path of bytes:
/// - A *character* is a well-formed UTF-8 sequence, or one byte that is not
///   part of one; bytes are compared as they are (case matters, no
///   normalization).
/// - `*` matches any run of characters within one component, none
///   included, a leading dot too; `?` matches one character; neither
///   matches `/`.
/// - `[...]` matches one character of the class: `[abc]`, ranges such as
///   `[a-z]` (by code point; a range of bytes that are not UTF-8 is written
///   with such bytes at both ends), negated with `!` or `^` first
///   (`[!0-9]`). A `]` first in the class (after a negation) is itself, as
///   is a `-` first or last. A class never matches `/`, and one that is not
///   closed is an error.
/// - `**` as a whole component matches any number of whole components:
///   `**/x` at any depth, `a/**/b` from none (`a/b`) up; `a/**` matches
///   everything inside `a`, but not `a`. `**` anywhere else is an error.
/// - `\` makes the next character stand for itself (`\*`, `\[`, `\\`); a
///   `/` always separates components.
/// - A pattern without `/` (a trailing one aside) matches an item's name at
///   any depth (`*.swp`, `build/`). A pattern with a `/` before its end is
///   matched against the whole path from the watched folder; a leading `/`
///   only anchors it there (`/build/`).
/// - A trailing `/` matches folders only (not a symbolic link to one).
/// - A leading `!` is an error: negation is not supported (write `\!` for a
///   name that starts with `!`). `.` and `..` components, empty ones
///   (`a//b`) and an empty pattern are errors too: no path has them.
///
/// An item is left out when it matches, or when a folder it is in does: a
/// folder left out is not entered or watched.
public struct IgnorePattern: Sendable, Hashable, CustomStringConvertible {
    /// The glob as given.
    public let bytes: [UInt8]
    /// Whether only folders match (the glob ends with `/`).
    public let matchesFoldersOnly: Bool
    /// Whether the glob is matched from the watched folder (it has a `/`
    /// before its end); otherwise it matches names at any depth.
    public let isAnchored: Bool
    /// The components to match, in order; a glob that is not anchored
    /// starts with `anyDepth`.
    private let components: [Component]

    enum Component: Hashable, Sendable {
        /// One component, matched by these tokens.
        case name([Token])
        /// `**` at the start or in the middle: no components or more.
        case anyDepth
        /// `**` at the end, after other components: one component or more.
        case everythingInside
    }

    enum Token: Hashable, Sendable {
        /// This character (see `character(at:in:)`).
        case character(UInt32)
        /// `?`.
        case anyCharacter
        /// `*`.
        case anyRun
        /// `[...]`.
        case oneOf(CharacterClass)
    }

    struct CharacterClass: Hashable, Sendable {
        var negated: Bool
        var ranges: [ClosedRange<UInt32>]

        func contains(_ character: UInt32) -> Bool {
            ranges.contains { $0.contains(character) } != negated
        }
    }

    /// What is wrong with a glob, and where.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What kind of problem it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// The glob is empty, or only `/`.
            case empty
            /// It starts with `!`, which would negate in other dialects.
            case negation
            /// A `[` opens a class that no `]` closes.
            case unclosedClass
            /// A class holds `/`, which no name holds.
            case slashInClass
            /// A class holds a POSIX class, collating symbol or equivalence
            /// class (`[[:alpha:]]`, `[[.a.]]`, `[[=a=]]`), which this dialect
            /// does not have.
            case posixClass
            /// A range ends before it starts (`[z-a]`), or joins a character
            /// to a byte that is not UTF-8.
            case badRange
            /// A `\` ends the glob, or stands before a `/`.
            case badEscape
            /// `**` is part of a component (`a**`, `***`) instead of all of it.
            case misplacedRecursion
            /// Two `/` in a row (`a//b`).
            case emptyComponent
            /// A component is `.` or `..`, which no path holds.
            case dotComponent
        }

        /// What kind of problem it is.
        public var code: Code
        /// The glob, printable on one line: `\xHH` for control characters and bytes that are not UTF-8.
        public var glob: String
        /// Where the problem is: the place of its character in the glob, from 1.
        public var position: Int
        /// What is wrong, in words.
        public var reason: String
        /// `GLOB: at character POSITION: REASON`.
        public var description: String { "\(glob): at character \(position): \(reason)" }

        /// A problem of `code` with `glob` at `position`, for `reason`.
        public init(_ code: Code, glob: String, position: Int, reason: String) {
            self.code = code
            self.glob = glob
            self.position = position
            self.reason = reason
        }
    }

    /// The glob, printable on one line (`\xHH` for control characters and
    /// bytes that are not UTF-8).
    public var description: String { Self.printable(bytes) }

    /// Reads `glob`; throws a `Problem` saying where it is malformed.
    public init(_ glob: String) throws(Problem) {
        try self.init(bytes: Array(glob.utf8))
    }

    /// Reads a glob given as bytes (which need not be UTF-8); throws a
    /// `Problem` saying where it is malformed.
    public init(bytes: [UInt8]) throws(Problem) {
        self.bytes = bytes
        let characters = Self.characters(bytes)
        func problem(_ code: Problem.Code, at index: Int, _ reason: String) -> Problem {
            Problem(code, glob: Self.printable(bytes), position: index + 1, reason: reason)
        }
        guard !characters.isEmpty else { throw problem(.empty, at: 0, "the pattern is empty") }
        if characters[0] == Self.exclamation {
            throw problem(
                .negation, at: 0,
                "a leading \"!\" does not negate here; write \"\\!\" for a name that starts with \"!\"")
        }
        // The glob as pieces: a separator, a star (kept apart to find `**`), or another token; each with its place.
        enum Piece {
            case slash
            case star
            case token(Token)
        }
        var pieces: [(piece: Piece, at: Int)] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            case Self.backslash:
                guard index + 1 < characters.count else {
                    throw problem(.badEscape, at: index, "a \"\\\" at the end escapes nothing")
                }
                guard characters[index + 1] != Self.slash else {
                    throw problem(.badEscape, at: index, "a \"/\" cannot be escaped: it always separates components")
                }
                pieces.append((.token(.character(characters[index + 1])), index))
                index += 2
            case Self.slash:
                pieces.append((.slash, index))
                index += 1
            case Self.star:
                pieces.append((.star, index))
                index += 1
            case Self.question:
                pieces.append((.token(.anyCharacter), index))
                index += 1
            case Self.openBracket:
                let (set, end) = try Self.readClass(characters, openedAt: index, problem)
                pieces.append((.token(.oneOf(set)), index))
                index = end
            default:
                pieces.append((.token(.character(character)), index))
                index += 1
            }
        }
        var foldersOnly = false
        var anchored = false
        if let last = pieces.last, case .slash = last.piece {
            foldersOnly = true
            pieces.removeLast()
            if let before = pieces.last, case .slash = before.piece {
                throw problem(.emptyComponent, at: last.at, "two \"/\" in a row: no path has an empty component")
            }
        }
        if case .slash = pieces.first?.piece {
            anchored = true
            pieces.removeFirst()
        }
        guard !pieces.isEmpty else { throw problem(.empty, at: 0, "the pattern names no path") }
        // Split into components.
        var groups: [[(piece: Piece, at: Int)]] = [[]]
        for item in pieces {
            if case .slash = item.piece {
                if groups[groups.count - 1].isEmpty {
                    throw problem(.emptyComponent, at: item.at, "two \"/\" in a row: no path has an empty component")
                }
                groups.append([])
            } else {
                groups[groups.count - 1].append(item)
            }
        }
        if groups.count > 1 { anchored = true }
        var components: [Component] = []
        for (number, group) in groups.enumerated() {
            let stars = group.filter { if case .star = $0.piece { true } else { false } }.count
            if stars == group.count && stars == 2 {
                // `**` alone in its component.
                let isLast = number == groups.count - 1
                let component: Component = isLast && groups.count > 1 ? .everythingInside : .anyDepth
                if components.last != component || component != .anyDepth { components.append(component) }
                continue
            }
            var tokens: [Token] = []
            var previousWasStar = false
            for item in group {
                switch item.piece {
                case .star:
                    if previousWasStar {
                        throw problem(
                            .misplacedRecursion, at: item.at - 1,
                            "\"**\" must be a whole component (**/name, a/**/b, a/**); write \"*\" within a name")
                    }
                    previousWasStar = true
                    tokens.append(.anyRun)
                case .token(let token):
                    previousWasStar = false
                    tokens.append(token)
                case .slash: break
                }
            }
            let dot = Token.character(Self.dot)
            if tokens == [dot] || tokens == [dot, dot] {
                throw problem(.dotComponent, at: group[0].at, "a \".\" or \"..\" component matches no path")
            }
            components.append(.name(tokens))
        }
        if !anchored && components != [.anyDepth] { components.insert(.anyDepth, at: 0) }
        self.matchesFoldersOnly = foldersOnly
        self.isAnchored = anchored
        self.components = components
    }

    /// Whether an item directly in the folder can match: false for a glob
    /// that needs a folder part (`sub/x`, `/cache/**`), which only matches
    /// what is inside a folder.
    public var canMatchTopLevelItem: Bool {
        let needed = components.filter { $0 != .anyDepth }.count
        return needed <= 1
    }

    /// Whether the item at `path` (inside the watched folder, without a
    /// leading `/`) matches, itself: `isFolder` says whether it is a
    /// folder. The folders above it are not looked at; a watch leaves out
    /// what is inside a folder that matches by never entering it.
    public func matches(_ path: [UInt8], isFolder: Bool) -> Bool {
        if matchesFoldersOnly && !isFolder { return false }
        if path.isEmpty { return false }
        // A name at any depth: only the last component counts.
        if components.count == 2, components[0] == .anyDepth, case .name(let tokens) = components[1] {
            let start = path.lastIndex(of: Self.slashByte).map { $0 + 1 } ?? 0
            return Self.nameMatches(tokens, path, from: start)
        }
        let parts = path.split(separator: Self.slashByte, omittingEmptySubsequences: false)
        // reachable[j]: the components so far can match the first j parts.
        var reachable = [Bool](repeating: false, count: parts.count + 1)
        reachable[0] = true
        for component in components {
            var next = [Bool](repeating: false, count: parts.count + 1)
            switch component {
            case .anyDepth:
                var any = false
                for j in 0...parts.count {
                    any = any || reachable[j]
                    next[j] = any
                }
            case .everythingInside:
                var any = false
                for j in 0...parts.count {
                    next[j] = any
                    any = any || reachable[j]
                }
            case .name(let tokens):
                for j in 0..<parts.count where reachable[j] {
                    next[j + 1] = Self.nameMatches(tokens, Array(parts[j]), from: 0)
                }
            }
            reachable = next
        }
        return reachable[parts.count]
    }

    /// Whether any of `patterns` matches the item at `path`.
    public static func any(of patterns: [IgnorePattern], matches path: [UInt8], isFolder: Bool) -> Bool {
        patterns.contains { $0.matches(path, isFolder: isFolder) }
    }

    /// The patterns a watch leaves out unless told not to: files that
    /// editors, downloaders and version control make for their own work,
    /// under names no document is given.
    ///
    /// - `*.swp`, `*.swo`, `*.swx`: Vim's swap files (`.notes.txt.swp`,
    ///   `.swo` when that one is taken) and the probe it makes beside them.
    /// - `4913`: the file Vim makes and removes at once to learn whether it
    ///   may create files in a folder.
    /// - `*~`: backups kept by Vim, Emacs (`notes.txt.~1~` too), gedit and
    ///   Kate.
    /// - `#*#`: Emacs's auto-save files; `.#*`: Emacs's lock links.
    /// - `*.kate-swp`: Kate's swap files.
    /// - `.goutputstream-*`: what GNOME programs (GIO) write before renaming
    ///   it over the file they save.
    /// - `.~lock.*#`: LibreOffice's lock files, there while a document is open.
    /// - `*.part`, `*.crdownload`: downloads in progress (Firefox and others;
    ///   Chromium and the browsers built on it), renamed once complete.
    /// - `.git/`, `.hg/`, `.svn/`: the folders where Git, Mercurial and
    ///   Subversion keep their own data.
    public static let defaults: [IgnorePattern] = [
        "*.swp", "*.swo", "*.swx", "4913", "*~", "#*#", ".#*", "*.kate-swp", ".goutputstream-*", ".~lock.*#",
        "*.part", "*.crdownload", ".git/", ".hg/", ".svn/",
    ].map { try! IgnorePattern($0) }

    // MARK: Matching a name

    // MARK: A compiled list

    /// A list of patterns read once, to match many names: it answers what
    /// each pattern's `matches(_:isFolder:)` answers, in the list's order,
    /// and matches a name's bytes where they are, without making a copy of
    /// them for each pattern. A pattern's first and last characters, where
    /// they are plain, are compared as bytes before anything else.
    public struct Matcher: Sendable {
        /// The patterns, in the order given.
        public let patterns: [IgnorePattern]
        private let compiled: [Compiled]

        /// One pattern, read for matching.
        struct Compiled: Sendable {
            /// Whether only folders match.
            var foldersOnly: Bool
            /// The tokens of a pattern that matches a name at any depth (the
            /// last component of a path); nil for others.
            var lastComponent: [Token]?
            /// The bytes every name it matches starts with, and ends with.
            var prefix: [UInt8]
            var suffix: [UInt8]
        }

        /// Reads `patterns`, for matching in this order.
        public init(_ patterns: [IgnorePattern]) {
            self.patterns = patterns
            compiled = patterns.map { pattern in
                var tokens: [Token]?
                if pattern.components.count == 2, pattern.components[0] == .anyDepth,
                    case .name(let found) = pattern.components[1]
                {
                    tokens = found
                }
                return Compiled(
                    foldersOnly: pattern.matchesFoldersOnly, lastComponent: tokens,
                    prefix: tokens.map { IgnorePattern.plainBytes($0, atEnd: false) } ?? [],
                    suffix: tokens.map { IgnorePattern.plainBytes($0, atEnd: true) } ?? [])
            }
        }

        /// Whether there is no pattern.
        public var isEmpty: Bool { patterns.isEmpty }

        /// The first pattern that matches the item at `path` (inside the
        /// watched folder, without a leading `/`), itself, as
        /// `matches(_:isFolder:)` answers; nil when none does. With
        /// `foldersOnly`, only patterns that match folders only (ending in
        /// `/`) are asked.
        public func firstMatch(_ path: [UInt8], isFolder: Bool, foldersOnly: Bool = false) -> IgnorePattern? {
            guard !path.isEmpty else { return nil }
            // Where the last component starts, and whether the path has one component only.
            let start = path.lastIndex(of: IgnorePattern.slashByte).map { $0 + 1 } ?? 0
            for index in compiled.indices {
                let pattern = compiled[index]
                if foldersOnly && !pattern.foldersOnly { continue }
                if pattern.foldersOnly && !isFolder { continue }
                let matched: Bool
                if let tokens = pattern.lastComponent {
                    let length = path.count - start
                    guard length >= pattern.prefix.count, length >= pattern.suffix.count,
                        Self.hasPrefix(path, from: start, pattern.prefix), Self.hasSuffix(path, pattern.suffix)
                    else { continue }
                    matched = IgnorePattern.nameMatches(tokens, path, from: start)
                } else if start == 0 {
                    matched = patterns[index].matchesOneComponent(path)
                } else {
                    matched = patterns[index].matches(path, isFolder: isFolder)
                }
                if matched { return patterns[index] }
            }
            return nil
        }

        private static func hasPrefix(_ path: [UInt8], from start: Int, _ prefix: [UInt8]) -> Bool {
            var index = 0
            while index < prefix.count {
                if path[start + index] != prefix[index] { return false }
                index += 1
            }
            return true
        }

        private static func hasSuffix(_ path: [UInt8], _ suffix: [UInt8]) -> Bool {
            let offset = path.count - suffix.count
            var index = 0
            while index < suffix.count {
                if path[offset + index] != suffix[index] { return false }
                index += 1
            }
            return true
        }
    }

    /// The bytes of the plain characters `tokens` start with (up to the
    /// first `*`, `?` or class), or `atEnd`, end with.
    static func plainBytes(_ tokens: [Token], atEnd: Bool) -> [UInt8] {
        var characters: [UInt32] = []
        for token in atEnd ? Array(tokens.reversed()) : tokens {
            guard case .character(let character) = token else { break }
            characters.append(character)
        }
        if atEnd { characters.reverse() }
        var out: [UInt8] = []
        for character in characters {
            if character >= rawBase {
                out.append(UInt8(character - rawBase))
            } else if let scalar = Unicode.Scalar(character) {
                out.append(contentsOf: String(scalar).utf8)
            } else {
                return []
            }
        }
        return out
    }

    /// Whether the path `path`, of one component (no `/`), matches, as
    /// `matches(_:isFolder:)` answers for it, whether a folder is asked aside.
    func matchesOneComponent(_ path: [UInt8]) -> Bool {
        // Whether the components so far can match none of the path, and all of it.
        var none = true
        var all = false
        for component in components {
            switch component {
            case .anyDepth: all = all || none
            case .everythingInside:
                all = none
                none = false
            case .name(let tokens):
                all = none && Self.nameMatches(tokens, path, from: 0)
                none = false
            }
        }
        return all
    }

    /// Whether the characters of `bytes` from `start` to the end match
    /// `tokens`, read in place: a `*` takes as few characters as it can,
    /// and more when what follows fails (the last `*` is the only one tried
    /// again, which is enough).
    static func nameMatches(_ tokens: [Token], _ bytes: [UInt8], from start: Int) -> Bool {
        var t = 0
        var n = start
        var retry: (token: Int, name: Int)? = nil
        while n < bytes.count {
            if t < tokens.count {
                let (found, length) = Self.character(bytes, at: n)
                switch tokens[t] {
                case .anyRun:
                    retry = (t, n)
                    t += 1
                    continue
                case .anyCharacter:
                    t += 1
                    n += length
                    continue
                case .character(let wanted) where wanted == found:
                    t += 1
                    n += length
                    continue
                case .oneOf(let set) where set.contains(found):
                    t += 1
                    n += length
                    continue
                default: break
                }
            }
            guard let last = retry else { return false }
            // The last `*` takes one more character.
            let next = last.name + Self.character(bytes, at: last.name).length
            retry = (last.token, next)
            t = last.token + 1
            n = next
        }
        while t < tokens.count, tokens[t] == .anyRun { t += 1 }
        return t == tokens.count
    }

    /// The character at `index` of `bytes` (see `characters(_:)`) and its length in bytes.
    static func character(_ bytes: [UInt8], at index: Int) -> (value: UInt32, length: Int) {
        let length = FileName.scalarLength(bytes, at: index)
        if length == 0 { return (rawBase + UInt32(bytes[index]), 1) }
        var value = UInt32(bytes[index])
        if length > 1 {
            value &= length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07
            for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        }
        return (value, length)
    }

    // MARK: Characters

    /// Where bytes that are not UTF-8 are numbered: past every code point.
    static let rawBase: UInt32 = 0x11_0000

    /// The characters of `bytes`: the code point of each well-formed UTF-8
    /// sequence, and `rawBase` + the byte for each byte that is not part of one.
    static func characters<Bytes: Collection>(_ bytes: Bytes) -> [UInt32] where Bytes.Element == UInt8 {
        let array = Array(bytes)
        var out: [UInt32] = []
        out.reserveCapacity(array.count)
        var index = 0
        while index < array.count {
            let length = FileName.scalarLength(array, at: index)
            if length == 0 {
                out.append(rawBase + UInt32(array[index]))
                index += 1
                continue
            }
            var value = UInt32(array[index])
            if length > 1 {
                value &= length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07
                for offset in 1..<length { value = value << 6 | UInt32(array[index + offset] & 0x3F) }
            }
            out.append(value)
            index += length
        }
        return out
    }

    /// Reads the class whose `[` is at `open`: the class, and the index
    /// after its `]`.
    private static func readClass(
        _ characters: [UInt32], openedAt open: Int, _ problem: (Problem.Code, Int, String) -> Problem
    ) throws(Problem) -> (CharacterClass, Int) {
        var index = open + 1
        var negated = false
        if index < characters.count, characters[index] == exclamation || characters[index] == caret {
            negated = true
            index += 1
        }
        let unclosed = problem(
            .unclosedClass, open, "\"[\" opens a class that no \"]\" closes (write \"\\[\" for a bracket)")
        /// The character at `index`, escaped or not, and the index after it.
        func member(_ index: Int) throws(Problem) -> (UInt32, Int) {
            var character = characters[index]
            var next = index + 1
            if character == backslash {
                guard next < characters.count else { throw unclosed }
                character = characters[next]
                next += 1
            }
            if character == slash { throw problem(.slashInClass, index, "a class cannot hold \"/\": no name has one") }
            return (character, next)
        }
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        while true {
            guard index < characters.count else { throw unclosed }
            if characters[index] == closeBracket && !first {
                return (CharacterClass(negated: negated, ranges: ranges), index + 1)
            }
            first = false
            let start = index
            if characters[index] == openBracket, index + 1 < characters.count,
                [0x3A, 0x2E, 0x3D].contains(characters[index + 1])  // ":", ".", "="
            {
                throw problem(
                    .posixClass, index,
                    "classes such as [:alpha:] are not supported: list the characters or ranges ([a-zA-Z])")
            }
            let (low, afterLow) = try member(index)
            index = afterLow
            if index + 1 < characters.count, characters[index] == dash, characters[index + 1] != closeBracket {
                let (high, afterHigh) = try member(index + 1)
                guard (low >= rawBase) == (high >= rawBase) else {
                    throw problem(.badRange, start, "a range joins a character to a byte that is not UTF-8")
                }
                guard low <= high else {
                    throw problem(.badRange, start, "the range ends before it starts")
                }
                ranges.append(low...high)
                index = afterHigh
            } else {
                ranges.append(low...low)
            }
        }
    }

    /// `bytes` on one line: control characters and bytes that are not
    /// UTF-8 as `\xHH`, the rest as it is.
    static func printable(_ bytes: [UInt8]) -> String {
        var out = String.UnicodeScalarView()
        let digits = Array("0123456789abcdef".unicodeScalars)
        for character in characters(bytes) {
            if character >= rawBase || character < 0x20 || character == 0x7F || (0x80...0x9F).contains(character) {
                var utf8: [UInt8] = []
                if character >= rawBase {
                    utf8 = [UInt8(character - rawBase)]
                } else {
                    utf8 = Array(String(Unicode.Scalar(character)!).utf8)
                }
                for byte in utf8 {
                    out.append(contentsOf: "\\x".unicodeScalars)
                    out.append(digits[Int(byte >> 4)])
                    out.append(digits[Int(byte & 15)])
                }
            } else {
                out.append(Unicode.Scalar(character)!)
            }
        }
        return String(out)
    }

    private static let slashByte: UInt8 = 0x2F
    private static let slash: UInt32 = 0x2F
    private static let backslash: UInt32 = 0x5C
    private static let star: UInt32 = 0x2A
    private static let question: UInt32 = 0x3F
    private static let openBracket: UInt32 = 0x5B
    private static let closeBracket: UInt32 = 0x5D
    private static let exclamation: UInt32 = 0x21
    private static let caret: UInt32 = 0x5E
    private static let dash: UInt32 = 0x2D
    private static let dot: UInt32 = 0x2E
}
