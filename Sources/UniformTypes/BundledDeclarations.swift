import PropertyLists

/// The declarations shipped in `Data/`, compiled into the library by
/// `tools/generate-bundled-declarations.py`, so that no XML is parsed to use
/// them.
public enum BundledDeclarations {
    /// The `Data/` files the declarations were compiled from, in load order.
    public static var files: [String] { BundledDeclarationData.files }

    /// Every bundled declaration, in declaration order.
    public static let all: [TypeDeclaration] = decode(BundledDeclarationData.records)

    /// Decodes the compiled records, working on UTF-8 bytes: splitting by
    /// `Character` would pay for grapheme breaking on every byte.
    static func decode(_ text: String) -> [TypeDeclaration] {
        var text = text
        return text.withUTF8 { bytes in
            var result: [TypeDeclaration] = []
            result.reserveCapacity(BundledDeclarationData.count)
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count && bytes[lineEnd] != 0x0A { lineEnd += 1 }
                if lineEnd > lineStart {
                    result.append(record(UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])))
                }
                lineStart = lineEnd + 1
            }
            return result
        }
    }

    private static func split(_ bytes: UnsafeBufferPointer<UInt8>, on separator: UInt8) -> [UnsafeBufferPointer<UInt8>]
    {
        var parts: [UnsafeBufferPointer<UInt8>] = []
        var start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == separator {
            parts.append(UnsafeBufferPointer(rebasing: bytes[start..<i]))
            start = i + 1
        }
        return parts
    }

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func strings(_ bytes: UnsafeBufferPointer<UInt8>, _ separator: UInt8) -> [String] {
        bytes.isEmpty ? [] : split(bytes, on: separator).map(string)
    }

    private static func optional(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        bytes.isEmpty ? nil : string(bytes)
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.reduce(0) { $0 * 10 + Int($1 &- 0x30) }
    }

    /// One record: kind, file index, line, identifier, parents, tags,
    /// description, reference URL, version (see the generator).
    private static func record(_ line: UnsafeBufferPointer<UInt8>) -> TypeDeclaration {
        let f = split(line, on: 0x09)
        precondition(f.count == 9, "malformed bundled declaration record")
        let tags =
            f[5].isEmpty
            ? []
            : split(f[5], on: 0x1D).map { spec -> TagSpecification in
                let parts = split(spec, on: 0x1E)
                return TagSpecification(TagClass(string(parts[0])), parts.count > 1 ? strings(parts[1], 0x1F) : [])
            }
        return TypeDeclaration(
            identifier: string(f[3]),
            kind: f[0].first == UInt8(ascii: "E") ? .exported : .imported,
            conformsTo: strings(f[4], 0x1F),
            tagSpecification: tags,
            description: optional(f[6]),
            referenceURL: optional(f[7]),
            version: optional(f[8]),
            origin: DeclarationOrigin(
                source: .bundled, file: BundledDeclarationData.files[number(f[1])],
                position: .line(number(f[2]))))
    }
}
