import SystemBase

extension TypeRegistry {
    /// How many names `queryNames(startingWith:limit:)` gives unless told.
    public static let queryNameLimit = 500

    /// The words a query may be that start with `prefix` (ASCII case
    /// ignored): the declared types' filename extensions (`jpg`; `.jpg`
    /// when `prefix` starts with a dot), MIME types (`image/jpeg`) and
    /// identifiers (`public.jpeg`), spelled as declared, each once, sorted
    /// by their UTF-8 bytes; the first `limit` of them. What a shell offers
    /// when a type is completed.
    public func queryNames(startingWith prefix: String, limit: Int = queryNameLimit) -> [String] {
        guard limit > 0 else { return [] }
        let dotted = prefix.hasPrefix(".")
        let wanted = Array(prefix.utf8.map(\.asciiLowercased))
        let extensionWanted = dotted ? Array(wanted.dropFirst()) : wanted
        func starts(_ name: String, with start: [UInt8]) -> Bool {
            var name = name
            return name.withUTF8 { bytes in
                bytes.count >= start.count && zip(bytes, start).allSatisfy { $0.asciiLowercased == $1 }
            }
        }
        var names: Set<String> = []
        for type in allTypes {
            if !dotted, starts(type.identifier, with: wanted) { names.insert(type.identifier) }
            for spec in type.tagSpecification {
                if spec.tagClass == .filenameExtension {
                    for tag in spec.tags where starts(tag, with: extensionWanted) {
                        names.insert(dotted ? "." + tag : tag)
                    }
                } else if spec.tagClass == .mimeType, !dotted {
                    for tag in spec.tags where starts(tag, with: wanted) { names.insert(tag) }
                }
            }
        }
        return Array(names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.prefix(limit))
    }
}
