import CompiledData

/// Bytes eight at a time, as little-endian words: finding a byte in a
/// name, and lower-casing an ASCII key while hashing it as
/// `ImageHash.forward` does.
enum WordBytes {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    /// The high bit of every byte.
    static let high: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes from `i` on, zero past `count`, read only inside
    /// `base[0..<count]`: the last word of a run of eight or more bytes is
    /// read as the eight bytes ending at `count`, shifted down.
    @inline(__always)
    static func load(_ base: UnsafePointer<UInt8>, _ i: Int, _ count: Int) -> UInt64 {
        let left = count - i
        if left >= 8 { return word(at: base + i) }
        if count >= 8 { return word(at: base + count - 8) >> (8 * UInt64(8 - left)) }
        var result: UInt64 = 0
        for k in 0..<left { result |= UInt64(base[i + k]) << (8 * UInt64(k)) }
        return result
    }

    /// The eight bytes at `p`, the first in the lowest bits.
    @inline(__always)
    private static func word(at p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// The high bit of each byte of `word` that equals `byte`.
    @inline(__always)
    static func equal(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (ones &* UInt64(byte))
        // A byte's high bit is set in the sum when its low seven bits are not all zero.
        return ~(((x & ~high) &+ ~high) | x | ~high)
    }

    /// The high bit of each byte of `word` (all ASCII) that is an
    /// upper-case letter: at least `A` and below `[`.
    @inline(__always)
    static func upperCase(_ word: UInt64) -> UInt64 {
        let fromA = word &+ ones &* UInt64(0x80 - 0x41)
        let pastZ = word &+ ones &* UInt64(0x80 - 0x5B)
        return (fromA ^ pastZ) & high
    }

    /// Writes `key` lower-cased (ASCII letters) to `out`, which has room for
    /// seven bytes more, and returns the `ImageHash.forward` hash of what
    /// it wrote and whether any letter was upper-case; nil when `key` is
    /// empty or holds a byte from 128 up.
    @inline(__always)
    static func lowercase(
        _ key: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>
    ) -> (hash: UInt32, hadUpperCase: Bool)? {
        guard let base = key.baseAddress, !key.isEmpty else { return nil }
        let n = key.count
        let raw = UnsafeMutableRawPointer(out)
        var hash = ImageHash.forwardStart(count: n)
        var upper: UInt64 = 0
        var i = 0
        while i < n {
            let word = load(base, i, n)
            if word & high != 0 { return nil }
            let letters = upperCase(word)
            upper |= letters
            let lower = word | letters >> 2
            raw.storeBytes(of: lower.littleEndian, toByteOffset: i, as: UInt64.self)
            hash = ImageHash.forwardMix(hash, lower)
            i += 8
        }
        return (ImageHash.forwardEnd(hash), upper != 0)
    }
}
