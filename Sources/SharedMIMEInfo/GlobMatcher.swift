#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fnmatch(3)` without flags, on bytes (as the C locale reads them): `*`
/// any run of bytes, `?` one byte, `[…]` one byte of a set (`!` or `^`
/// negates, `a-z` ranges), `\` escapes. Patterns with `[:class:]`,
/// `[=c=]` or `[.c.]` are passed to the C library.
enum GlobMatcher {
    static func matches(_ pattern: UnsafeBufferPointer<UInt8>, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        if needsLibrary(pattern) { return library(pattern, name) }
        var p = 0, n = 0
        var starP = -1, starN = 0
        while n < name.count {
            if p < pattern.count {
                let c = pattern[p]
                if c == UInt8(ascii: "*") {
                    starP = p
                    starN = n
                    p += 1
                    continue
                }
                if c == UInt8(ascii: "?") {
                    p += 1
                    n += 1
                    continue
                }
                if c == UInt8(ascii: "["), let (matched, next) = bracket(pattern, p, name[n]) {
                    if matched {
                        p = next
                        n += 1
                        continue
                    }
                } else {
                    var literal = c, next = p + 1
                    if c == UInt8(ascii: "\\") && p + 1 < pattern.count {
                        literal = pattern[p + 1]
                        next = p + 2
                    }
                    if literal == name[n] {
                        p = next
                        n += 1
                        continue
                    }
                }
            }
            guard starP >= 0 else { return false }
            starN += 1
            n = starN
            p = starP + 1
        }
        while p < pattern.count && pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }

    /// Whether the bracket expression at `start` admits `byte`, and the
    /// index after it; nil when it is not closed (then `[` is literal).
    static func bracket(_ pattern: UnsafeBufferPointer<UInt8>, _ start: Int, _ byte: UInt8) -> (Bool, Int)? {
        var i = start + 1
        var negate = false
        if i < pattern.count && (pattern[i] == UInt8(ascii: "!") || pattern[i] == UInt8(ascii: "^")) {
            negate = true
            i += 1
        }
        var matched = false
        var first = true
        while i < pattern.count {
            var low = pattern[i]
            if low == UInt8(ascii: "]") && !first { return (matched != negate, i + 1) }
            first = false
            if low == UInt8(ascii: "\\") && i + 1 < pattern.count {
                i += 1
                low = pattern[i]
            }
            i += 1
            var high = low
            if i + 1 < pattern.count && pattern[i] == UInt8(ascii: "-") && pattern[i + 1] != UInt8(ascii: "]") {
                high = pattern[i + 1]
                if high == UInt8(ascii: "\\") && i + 2 < pattern.count {
                    i += 1
                    high = pattern[i + 1]
                }
                i += 2
            }
            if low <= byte && byte <= high { matched = true }
        }
        return nil
    }

    /// The bytes a name matching `pattern` can end with, as 8 words of
    /// bits; nil when any byte can end it (the pattern ends with `*`).
    static func lastBytes(_ pattern: UnsafeBufferPointer<UInt8>) -> [UInt32]? {
        guard !pattern.isEmpty, !needsLibrary(pattern) else { return nil }
        // Find the last element by walking the pattern.
        var i = 0
        var last: (kind: UInt8, start: Int) = (0, 0)
        while i < pattern.count {
            let c = pattern[i]
            if c == UInt8(ascii: "["), let (_, next) = bracket(pattern, i, 0) {
                last = (UInt8(ascii: "["), i)
                i = next
            } else if c == UInt8(ascii: "\\") && i + 1 < pattern.count {
                last = (UInt8(ascii: "\\"), i + 1)
                i += 2
            } else {
                last = (c == UInt8(ascii: "*") || c == UInt8(ascii: "?") ? c : 0, i)
                i += 1
            }
        }
        var bits = [UInt32](repeating: 0, count: 8)
        switch last.kind {
        case UInt8(ascii: "*"), UInt8(ascii: "?"): return nil
        case UInt8(ascii: "["):
            for b in 0...255 where bracket(pattern, last.start, UInt8(b))?.0 == true {
                bits[b >> 5] |= 1 << UInt32(b & 31)
            }
        default:
            let b = Int(pattern[last.start])
            bits[b >> 5] |= 1 << UInt32(b & 31)
        }
        return bits
    }

    /// The bytes before the first special character.
    static func literalPrefixLength(_ pattern: UnsafeBufferPointer<UInt8>) -> Int {
        pattern.firstIndex {
            $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "\\")
        }
            ?? pattern.count
    }

    static func needsLibrary(_ pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i + 1 < pattern.count {
            if pattern[i] == UInt8(ascii: "[")
                && [UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: ".")].contains(pattern[i + 1])
            {
                return true
            }
            i += 1
        }
        return false
    }

    private static func library(_ pattern: UnsafeBufferPointer<UInt8>, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        fnmatch(String(decoding: pattern, as: UTF8.self), String(decoding: name, as: UTF8.self), 0) == 0
    }
}

/// Whether a glob pattern can match a file name whose part before its first
/// dot is unknown: one or more bytes other than `.` and `/`, then a known
/// tail (from that dot on) in any ASCII case. The answer may say yes for a
/// pattern that never matches such a name (patterns the C library matches
/// always do), never no for one that can.
public struct GlobTailTest: Sendable {
    /// One element of the pattern: `*`, or the set of bytes one position admits.
    private struct Element: Sendable {
        var star: Bool
        var admits: [Bool]
    }
    private let elements: [Element]
    /// The states (element positions) the pattern can be in after any
    /// unknown first part; nil when the pattern is not examined.
    private let afterPrefix: [Bool]?

    /// The test for `pattern` (fnmatch syntax, as `GlobMatcher` reads it).
    public init(pattern: UnsafeBufferPointer<UInt8>) {
        guard !GlobMatcher.needsLibrary(pattern) else {
            elements = []
            afterPrefix = nil
            return
        }
        var elements: [Element] = []
        var i = 0
        while i < pattern.count {
            let c = pattern[i]
            if c == UInt8(ascii: "*") {
                elements.append(Element(star: true, admits: []))
                i += 1
            } else if c == UInt8(ascii: "?") {
                elements.append(Element(star: false, admits: [Bool](repeating: true, count: 256)))
                i += 1
            } else if c == UInt8(ascii: "["), let (_, next) = GlobMatcher.bracket(pattern, i, 0) {
                let start = i
                elements.append(
                    Element(star: false, admits: (0...255).map { GlobMatcher.bracket(pattern, start, UInt8($0))!.0 }))
                i = next
            } else {
                var literal = c
                if c == UInt8(ascii: "\\") && i + 1 < pattern.count {
                    literal = pattern[i + 1]
                    i += 2
                } else {
                    i += 1
                }
                var admits = [Bool](repeating: false, count: 256)
                admits[Int(literal)] = true
                elements.append(Element(star: false, admits: admits))
            }
        }
        self.elements = elements
        // The states after one or more bytes of the first part, to a fixed point.
        var start = [Bool](repeating: false, count: elements.count + 1)
        start[0] = true
        Self.close(&start, elements)
        let prefixBytes = (0...255).filter { $0 != Int(UInt8(ascii: ".")) && $0 != Int(UInt8(ascii: "/")) }
        var reach = Self.step(start, elements, prefixBytes)
        while true {
            let more = Self.step(reach, elements, prefixBytes)
            let merged = zip(reach, more).map { $0 || $1 }
            if merged == reach { break }
            reach = merged
        }
        afterPrefix = reach
    }

    /// Whether the pattern can match some name that is an unknown first
    /// part, then `tail` in some ASCII case.
    public func mayMatch(tail: UnsafeBufferPointer<UInt8>) -> Bool {
        guard var states = afterPrefix else { return true }
        for byte in tail {
            let lower = byte.asciiLowercased
            let upper = lower &- 97 < 26 ? lower & ~0x20 : lower
            states = Self.step(states, elements, [Int(byte), Int(lower), Int(upper)])
            if !states.contains(true) { return false }
        }
        return states[elements.count]
    }

    /// Adds the states a `*` reaches by matching nothing.
    private static func close(_ states: inout [Bool], _ elements: [Element]) {
        for j in elements.indices where states[j] && elements[j].star { states[j + 1] = true }
    }

    /// The states after one byte, any of `input`.
    private static func step(_ states: [Bool], _ elements: [Element], _ input: [Int]) -> [Bool] {
        var next = [Bool](repeating: false, count: elements.count + 1)
        for j in elements.indices where states[j] {
            if elements[j].star {
                next[j] = true
            } else if input.contains(where: { elements[j].admits[$0] }) {
                next[j + 1] = true
            }
        }
        close(&next, elements)
        return next
    }
}
