import PropertyLists

/// The declarations shipped in `Data/`, compiled into the library by
/// `tools/generate-bundled-declarations.py`, so that no XML is parsed to use
/// them.
public enum BundledDeclarations {
    /// The `Data/` files the declarations were compiled from, in load order.
    public static var files: [String] { BundledDeclarationData.files }

    /// Every bundled declaration, in declaration order.
    public static let all: [TypeDeclaration] = decode(BundledDeclarationData.records)

    static func decode(_ text: String) -> [TypeDeclaration] {
        var result: [TypeDeclaration] = []
        result.reserveCapacity(BundledDeclarationData.count)
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            precondition(f.count == 9, "malformed bundled declaration record")
            let tags = f[5].isEmpty ? [] : f[5].split(separator: "\u{1D}").map { spec -> TagSpecification in
                let parts = spec.split(separator: "\u{1E}", maxSplits: 1, omittingEmptySubsequences: false)
                let values = parts.count > 1 ? parts[1].split(separator: "\u{1F}").map(String.init) : []
                return TagSpecification(TagClass(String(parts[0])), values)
            }
            result.append(TypeDeclaration(
                identifier: f[3],
                kind: f[0] == "E" ? .exported : .imported,
                conformsTo: f[4].isEmpty ? [] : f[4].split(separator: "\u{1F}").map(String.init),
                tagSpecification: tags,
                description: f[6].isEmpty ? nil : f[6],
                referenceURL: f[7].isEmpty ? nil : f[7],
                version: f[8].isEmpty ? nil : f[8],
                origin: DeclarationOrigin(source: .bundled, file: BundledDeclarationData.files[Int(f[1])!],
                                          position: .line(Int(f[2])!))))
        }
        return result
    }
}
