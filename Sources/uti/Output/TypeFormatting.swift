import UniformTypes

/// The text and JSON forms of types and lookups. The JSON schema is
/// documented in docs/json.md and kept stable.
enum TypeFormatting {
    static func json(_ type: UniformType, language: String? = nil) -> JSON {
        let tags = mergedTags(type).map { ($0.tagClass.identifier, JSON.strings($0.tags)) }
        var origin = JSON.null
        if let declaration = type.declaration {
            origin = .object([
                ("source", .string(declaration.origin.source.rawValue)),
                ("kind", .string(declaration.kind.rawValue)),
                ("file", .string(declaration.origin.file)),
                ("line", declaration.origin.position.line.map(JSON.int) ?? .null),
            ])
        }
        return .object([
            ("identifier", .string(type.identifier)),
            ("description", .optional(type.localizedDescription(language: language))),
            ("declared", .bool(type.isDeclared)),
            ("dynamic", .bool(type.isDynamic)),
            ("public", .bool(type.isPublic)),
            ("conformsTo", JSON.strings(type.declaredParents)),
            ("supertypes", JSON.strings(type.orderedSupertypes.map(\.identifier))),
            ("tags", .object(tags)),
            ("preferredFilenameExtension", .optional(type.preferredFilenameExtension)),
            ("preferredMIMEType", .optional(type.preferredMIMEType)),
            ("referenceURL", .optional(type.referenceURL)),
            ("version", .optional(type.version)),
            ("origin", origin),
            ("supplementedBy", JSON.strings(type.registry.supplemented(type).map(\.description))),
        ])
    }

    static func json(_ resolution: Resolution, language: String? = nil) -> JSON {
        .object([
            ("query", .string(resolution.query)),
            ("queryKind", .string(resolution.kind.rawValue)),
            ("type", json(resolution.type, language: language)),
            ("alternatives", JSON.strings(resolution.alternatives.map(\.identifier))),
        ])
    }

    /// The multi-line description `uti QUERY` prints.
    /// The MIME type `--mime` prints for a query: the type's preferred one.
    /// For an extension whose type has none, what `uti file --no-sniff
    /// --mime x.EXT` prints (GIO's name for the name, so
    /// `application/octet-stream` for unknown data), when the file is
    /// typed as that type or a narrower one, or the extension's type is
    /// dynamic (no declaration claims it as data); else nil: the type has
    /// no MIME type.
    static func mimeType(_ resolution: Resolution, registry: TypeRegistry) -> String? {
        if let preferred = resolution.type.preferredMIMEType { return preferred }
        guard resolution.kind == .filenameExtension else { return nil }
        let ext = resolution.query.hasPrefix(".") ? String(resolution.query.dropFirst()) : resolution.query
        let byName = FileTyping(registry: registry).type(forName: "x." + ext)
        guard resolution.type.isDynamic || byName.type.conforms(to: resolution.type) else { return nil }
        return FileCommand.mimeType(byName)
    }

    static func text(_ resolution: Resolution, language: String? = nil) -> TerminalText {
        let type = resolution.type
        var lines: [TerminalText] = []
        var head: TerminalText = "\(type.identifier)"
        if let description = type.localizedDescription(language: language) { head += "  \(description)" }
        lines.append(head)
        func field(_ name: TerminalText, _ value: TerminalText) {
            lines.append("  \((name + ":").padding(18))\(value)")
        }
        field("query", "\(resolution.kind.rawValue) \"\(resolution.query)\"")
        if let declaration = type.declaration {
            field(
                "declared",
                "\(declaration.kind.rawValue), \(declaration.origin.source.rawValue), \(declaration.origin.description)"
            )
            for overridden in type.registry.overridden(type) {
                field("overrides", "\(overridden.description)")
            }
            for source in type.registry.supplemented(type) {
                field("tags also from", "\(source.description)")
            }
        } else {
            field("declared", type.isDynamic ? "no (dynamic)" : "no")
        }
        if !type.declaredParents.isEmpty { field("conforms to", TerminalText.list(type.declaredParents)) }
        let supertypes = type.orderedSupertypes.map(\.identifier)
        if !supertypes.isEmpty { field("supertypes", TerminalText.list(supertypes)) }
        for spec in mergedTags(type) { field("\(spec.tagClass.label)", TerminalText.list(spec.tags)) }
        if let url = type.referenceURL { field("reference", "\(url)") }
        if let version = type.version { field("version", "\(version)") }
        if !resolution.alternatives.isEmpty {
            field("also claimed by", TerminalText.list(resolution.alternatives.map(\.identifier)))
        }
        return lines.joined(separator: "\n")
    }

    /// Tag specifications with repeated classes merged, first-seen order.
    static func mergedTags(_ type: UniformType) -> [TagSpecification] {
        var result: [TagSpecification] = []
        for spec in type.tagSpecification {
            if let i = result.firstIndex(where: { $0.tagClass == spec.tagClass }) {
                result[i].tags += spec.tags
            } else {
                result.append(spec)
            }
        }
        return result
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
