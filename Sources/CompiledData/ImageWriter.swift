/// Builds a compiled image: an array of 32-bit words (the structure) and a
/// pool of bytes (strings and blobs) that words point into. The result is
/// read back without decoding by `ImageView`.
public struct ImageWriter {
    public private(set) var words: [UInt32] = []
    public private(set) var pool: [UInt8] = []
    private var interned: [String: UInt32] = [:]

    /// The word that marks an absent string or blob.
    public static let none: UInt32 = .max

    /// The words of one hash-table bucket, after the table's mask word.
    public enum Bucket {
        public static let hash = 0, keyOffset = 1, keyLength = 2, value = 3
        public static let size = 4
    }

    public init() {}

    public var wordCount: Int { words.count }

    /// Appends one word and returns its index.
    @discardableResult
    public mutating func append(_ word: UInt32) -> Int {
        words.append(word)
        return words.count - 1
    }

    @discardableResult
    public mutating func append(_ value: Int) -> Int { append(UInt32(truncatingIfNeeded: value)) }

    /// Appends `count` zero words to fill in later and returns the first index.
    public mutating func reserve(_ count: Int) -> Int {
        words.append(contentsOf: repeatElement(0, count: count))
        return words.count - count
    }

    public subscript(index: Int) -> UInt32 {
        get { words[index] }
        set { words[index] = newValue }
    }

    /// Appends a string reference (pool offset, length): two words. Equal
    /// strings share their bytes; nil is stored as `none`.
    public mutating func appendString(_ string: String?) {
        let (offset, length) = reference(string)
        append(offset)
        append(length)
    }

    /// Writes the reference of `string` (stored once) into words `index`
    /// and `index + 1`, which were reserved before.
    public mutating func setString(_ string: String?, at index: Int) {
        let (offset, length) = reference(string)
        words[index] = offset
        words[index + 1] = length
    }

    /// The pool reference of `string`, stored once.
    public mutating func reference(_ string: String?) -> (UInt32, UInt32) {
        guard let string else { return (Self.none, 0) }
        if let offset = interned[string] { return (offset, UInt32(string.utf8.count)) }
        let offset = UInt32(pool.count)
        pool.append(contentsOf: string.utf8)
        interned[string] = offset
        return (offset, UInt32(string.utf8.count))
    }

    /// The pool offset of `bytes`, shared with an equal string already stored.
    private mutating func internedOffset(_ bytes: [UInt8]) -> UInt32 {
        if let text = String(validating: bytes, as: UTF8.self) { return reference(text).0 }
        let offset = UInt32(pool.count)
        pool.append(contentsOf: bytes)
        return offset
    }

    /// Writes a reference to `bytes` (stored as given; nil is stored as
    /// `none`) into words `index` and `index + 1`, which were reserved before.
    public mutating func setBlob(_ bytes: [UInt8]?, at index: Int) {
        guard let bytes else {
            words[index] = Self.none
            words[index + 1] = 0
            return
        }
        words[index] = UInt32(pool.count)
        words[index + 1] = UInt32(bytes.count)
        pool.append(contentsOf: bytes)
    }

    /// Appends a blob reference (two words) to `bytes`, stored as given.
    public mutating func appendBlob(_ bytes: [UInt8]) {
        append(UInt32(pool.count))
        append(bytes.count)
        pool.append(contentsOf: bytes)
    }

    /// Appends a hash table from byte keys to word values and returns the
    /// index of its first word. With `reversedKeys` the stored hash is that
    /// of the key read backwards, for suffix lookups that grow leftwards.
    /// Layout: bucket mask, then per bucket: hash, key offset (`none` when
    /// empty), key length, value; linear probing, at most three quarters full.
    public mutating func appendHashTable(_ entries: [(key: [UInt8], value: UInt32)], reversedKeys: Bool = false) -> Int
    {
        var buckets = 8
        while buckets * 3 < entries.count * 4 { buckets <<= 1 }
        let start = append(buckets - 1)
        let base = reserve(buckets * Bucket.size)
        for b in 0..<buckets { words[base + b * Bucket.size + Bucket.keyOffset] = Self.none }
        for (key, value) in entries {
            let hash =
                reversedKeys ? ImageHash.reversed(key[...]) : key.withUnsafeBufferPointer { ImageHash.forward($0) }
            var b = Int(hash) & (buckets - 1)
            while words[base + b * Bucket.size + Bucket.keyOffset] != Self.none { b = (b + 1) & (buckets - 1) }
            let slot = base + b * Bucket.size
            words[slot + Bucket.hash] = hash
            words[slot + Bucket.keyOffset] = internedOffset(key)
            words[slot + Bucket.keyLength] = UInt32(key.count)
            words[slot + Bucket.value] = value
        }
        return start
    }

    /// The finished image: header, words, pool. `kind` names what the image
    /// holds; `root` is the word index its reader starts from.
    public func image(kind: ImageKind, root: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: ImageHeader.size)
        out.reserveCapacity(ImageHeader.size + words.count * 4 + pool.count)
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { for (i, byte) in $0.enumerated() { out[offset + i] = byte } }
        }
        out.replaceSubrange(ImageHeader.magic..<ImageHeader.magic + 8, with: ImageView.magic)
        put(ImageView.formatVersion, at: ImageHeader.formatVersion)
        put(kind.tag, at: ImageHeader.kind)
        put(UInt32(root), at: ImageHeader.root)
        put(UInt32(words.count), at: ImageHeader.wordCount)
        put(UInt32(pool.count), at: ImageHeader.poolCount)
        put(kind.layoutVersion, at: ImageHeader.layoutVersion)
        for w in words { withUnsafeBytes(of: w.littleEndian) { out.append(contentsOf: $0) } }
        out.append(contentsOf: pool)
        let sum = out.withUnsafeBytes { ImageHash.checksum(UnsafeRawBufferPointer(rebasing: $0[ImageHeader.size...])) }
        put(sum, at: ImageHeader.checksum)
        return out
    }
}

/// The hashes images use: over keys, eight bytes at a time (forward
/// tables) or FNV-1a byte by byte from the end (suffix tables, whose lookups
/// grow a key leftwards one byte at a time); and a four-lane
/// multiply-rotate sum over whole images (damage detection).
public enum ImageHash {
    static let basis: UInt32 = 2_166_136_261
    static let prime: UInt32 = 16_777_619

    @inline(__always)
    public static func step(_ hash: UInt32, _ byte: UInt8) -> UInt32 { (hash ^ UInt32(byte)) &* prime }

    public static var start: UInt32 { basis }

    /// The hash of a key of a forward table: its little-endian 64-bit words
    /// (the last one zero-filled) mixed by multiplication, with its length.
    @inlinable @inline(__always)
    public static func forward(_ key: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let n = key.count
        var h = forwardStart(count: n)
        guard let base = key.baseAddress, n > 0 else { return forwardEnd(forwardMix(h, 0)) }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while n - i >= 8 {
            h = forwardMix(h, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += 8
        }
        if i < n {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < n {
                tail |= UInt64(base[i]) << shift
                shift += 8
                i += 1
            }
            h = forwardMix(h, tail)
        }
        return forwardEnd(h)
    }

    /// `forward` in steps, for a reader that has the key's words at hand:
    /// the start for a key of `count` bytes, ...
    @inlinable @inline(__always)
    public static func forwardStart(count: Int) -> UInt64 { 0x9E37_79B9_7F4A_7C15 ^ UInt64(count) }

    /// ... each word mixed in (an empty key mixes one zero word), ...
    @inlinable @inline(__always)
    public static func forwardMix(_ h: UInt64, _ word: UInt64) -> UInt64 {
        let x = (h ^ word) &* 0xFF51_AFD7_ED55_8CCD
        return x ^ (x >> 32)
    }

    /// ... and the hash.
    @inlinable @inline(__always)
    public static func forwardEnd(_ h: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: forwardMix(h, 0x2545_F491_4F6C_DD1D))
    }

    /// `forward` over any bytes.
    public static func forward<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        Array(bytes).withUnsafeBufferPointer { forward($0) }
    }

    public static func reversed<C: BidirectionalCollection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var h = basis
        for b in bytes.reversed() { h = step(h, b) }
        return h
    }

    /// A 64-bit sum of `data` that changes when any byte does.
    public static func checksum(_ data: UnsafeRawBufferPointer) -> UInt64 {
        @inline(__always) func mix(_ lane: UInt64, _ word: UInt64) -> UInt64 {
            let x = (lane ^ word) &* 0x9E37_79B9_7F4A_7C15
            return (x << 31) | (x >> 33)
        }
        var a: UInt64 = 0x243F_6A88_85A3_08D3, b: UInt64 = 0x1319_8A2E_0370_7344
        var c: UInt64 = 0xA409_3822_299F_31D0, d: UInt64 = 0x082E_FA98_EC4E_6C89
        let blocks = data.count / 32
        var offset = 0
        for _ in 0..<blocks {
            a = mix(a, data.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            b = mix(b, data.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            c = mix(c, data.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            d = mix(d, data.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            offset += 32
        }
        var tail: UInt64 = UInt64(data.count)
        while offset < data.count {
            tail = (tail << 8 | UInt64(data[offset])) &* 0x100_0000_01B3
            offset += 1
        }
        return mix(mix(mix(mix(tail, a), b), c), d)
    }
}
