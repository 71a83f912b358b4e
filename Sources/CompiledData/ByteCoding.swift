/// Writes values as a compact byte stream: unsigned LEB128 integers and
/// length-prefixed strings. `ByteReader` reads them back in the same order.
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func int(_ value: Int) {
        var v = UInt64(bitPattern: Int64(value))
        // Zig-zag, so that small negative numbers stay short.
        v = (v << 1) ^ UInt64(bitPattern: Int64(value) >> 63)
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    public mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    public mutating func bytes(_ value: [UInt8]) {
        int(value.count)
        bytes.append(contentsOf: value)
    }

    public mutating func string(_ value: String) { bytes(Array(value.utf8)) }

    public mutating func optional(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }

    public mutating func strings(_ values: [String]) {
        int(values.count)
        for v in values { string(v) }
    }

    /// A dictionary in key order, so equal dictionaries give equal bytes.
    public mutating func map<V>(_ values: [String: V], _ write: (inout ByteWriter, V) -> Void) {
        int(values.count)
        for key in values.keys.sorted() {
            string(key)
            write(&self, values[key]!)
        }
    }
}

/// Reads what `ByteWriter` wrote; every read is bounds-checked and a
/// malformed stream is an error.
public struct ByteReader {
    private let data: UnsafeBufferPointer<UInt8>
    public private(set) var offset = 0

    public init(_ data: UnsafeBufferPointer<UInt8>) { self.data = data }

    public var isAtEnd: Bool { offset == data.count }

    public mutating func int() throws(ImageError) -> Int {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < data.count, shift < 64 else {
                throw ImageError(.damaged, "integer runs past the end at byte \(offset)")
            }
            let b = data[offset]
            offset += 1
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { break }
            shift += 7
        }
        return Int(Int64(bitPattern: (result >> 1) ^ (0 &- (result & 1))))
    }

    /// A count or length: not negative and at most `limit`.
    public mutating func count(limit: Int? = nil) throws(ImageError) -> Int {
        let n = try int()
        guard n >= 0, n <= (limit ?? data.count - offset) else {
            throw ImageError(.damaged, "count \(n) out of range at byte \(offset)")
        }
        return n
    }

    public mutating func bool() throws(ImageError) -> Bool { try int() != 0 }

    public mutating func bytes() throws(ImageError) -> [UInt8] {
        let n = try count()
        defer { offset += n }
        return Array(data[offset..<offset + n])
    }

    public mutating func string() throws(ImageError) -> String {
        let n = try count()
        defer { offset += n }
        return String(decoding: UnsafeBufferPointer(rebasing: data[offset..<offset + n]), as: UTF8.self)
    }

    public mutating func optional() throws(ImageError) -> String? {
        try bool() ? try string() : nil
    }

    public mutating func strings() throws(ImageError) -> [String] {
        let n = try count()
        var result: [String] = []
        result.reserveCapacity(n)
        for _ in 0..<n { result.append(try string()) }
        return result
    }

    public mutating func map<V>(_ read: (inout ByteReader) throws(ImageError) -> V) throws(ImageError) -> [String: V] {
        let n = try count()
        var result: [String: V] = [:]
        result.reserveCapacity(n)
        for _ in 0..<n {
            let key = try string()
            result[key] = try read(&self)
        }
        return result
    }
}
