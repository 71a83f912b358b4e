#if canImport(Glibc)
    import Glibc
#endif

/// Paths are bytes: an argument or a record of standard input need not be
/// UTF-8 (`bad\xffname.png`), and the argument parser takes text. Such text
/// carries each byte that is not part of well-formed UTF-8 as one scalar of
/// the last 256 code points of plane 16 (U+10FF00 + byte), and a scalar of
/// that range that was really there as its own four bytes, so that `bytes`
/// gives back exactly what came in. Valid UTF-8 outside that range, which
/// is every name in practice, is text unchanged.
enum PathText {
    private static let base: UInt32 = 0x10FF00

    /// Text for `bytes`, reversible with `bytes(_:)`.
    static func text<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let array = Array(bytes)
        if let text = String(validating: array, as: UTF8.self), !text.unicodeScalars.contains(where: isCarrier) {
            return text
        }
        var out = String.UnicodeScalarView()
        var index = 0
        while index < array.count {
            let length = scalarLength(array, at: index)
            if length > 0,
                let scalar = String(validating: array[index..<(index + length)], as: UTF8.self)?.unicodeScalars.first,
                !isCarrier(scalar)
            {
                out.append(scalar)
                index += length
            } else {
                for byte in array[index..<(index + max(length, 1))] { out.append(Unicode.Scalar(base + UInt32(byte))!) }
                index += max(length, 1)
            }
        }
        return String(out)
    }

    /// The bytes `text` stands for.
    static func bytes(_ text: String) -> [UInt8] {
        guard text.unicodeScalars.contains(where: isCarrier) else { return Array(text.utf8) }
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            if isCarrier(scalar) {
                out.append(UInt8(scalar.value - base))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    /// Whether `scalar` carries a byte.
    static func isCarrier(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= base }

    /// The byte a carrier scalar stands for.
    static func byte(_ scalar: Unicode.Scalar) -> UInt8 { UInt8(scalar.value - base) }

    /// The byte a carrier scalar stands for; nil for any other scalar.
    static func rawByte(_ scalar: Unicode.Scalar) -> UInt8? { isCarrier(scalar) ? byte(scalar) : nil }

    /// Whether `text` stands for bytes that are not UTF-8.
    static func isRaw(_ text: String) -> Bool { text.unicodeScalars.contains(where: isCarrier) }

    /// The program's arguments as the kernel passed them, each as text
    /// (`CommandLine.arguments` replaces bytes that are not UTF-8).
    static func commandLineArguments() -> [String] {
        (0..<Int(CommandLine.argc)).map { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return "" }
            return text(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                    count: strlen(pointer)))
        }
    }

    /// The length of the well-formed UTF-8 sequence at `index`, or 0.
    private static func scalarLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0
        }
        guard index + length <= bytes.count,
            String(validating: bytes[index..<(index + length)], as: UTF8.self) != nil
        else { return 0 }
        return length
    }
}
