extension UInt8 {
    /// The byte with `A`–`Z` lowered to `a`–`z`, every other byte as it is:
    /// how tags, schemes and identifiers compare, whatever the locale.
    @inlinable package var asciiLowercased: UInt8 { self &- 65 < 26 ? self | 0x20 : self }
}

extension String {
    /// The string with ASCII letters lowered and every other character as
    /// it is (`String.lowercased()` also lowers `É` and maps `İ` to two
    /// characters, which identifiers and tags must not).
    package var asciiLowercased: String {
        if !utf8.contains(where: { $0 &- 65 < 26 }) { return self }
        return String(decoding: utf8.map(\.asciiLowercased), as: UTF8.self)
    }
}
