import Testing

@testable import UniformTypes

/// The types and changes of macOS 13 and later that `Data/Additions.plist`
/// brings to macOS 12's CoreTypes, each row through the library.
@Suite struct NewerAppleTypesTests {
    let registry = TypeRegistry.bundled

    /// One row of the additions: the type, its extensions, MIME types and
    /// declared parents, and a supertype it reaches through them.
    struct Row: Sendable, CustomTestStringConvertible {
        var identifier: String
        var extensions: [String]
        var mimeTypes: [String]
        var parents: [String]
        var reaches: String
        var testDescription: String { identifier }
    }

    static let rows: [Row] = [
        Row(
            identifier: "com.apple.trace", extensions: ["atrc"], mimeTypes: [], parents: ["public.data", "public.log"],
            reaches: "public.item"),
        Row(
            identifier: "com.apple.ktrace", extensions: ["ktrace"], mimeTypes: [],
            parents: ["com.apple.trace", "public.log"], reaches: "public.data"),
        Row(
            identifier: "com.apple.finance.order", extensions: ["order"],
            mimeTypes: ["application/vnd.apple.finance.order"], parents: ["public.data"], reaches: "public.item"),
        Row(
            identifier: "com.pixar.universal-scene-description", extensions: ["usd", "usdc"], mimeTypes: [],
            parents: ["public.3d-content", "public.data"], reaches: "public.content"),
        Row(
            identifier: "com.pixar.universal-scene-description-utf8", extensions: ["usda"],
            mimeTypes: ["model/vnd.usda"],
            parents: ["com.pixar.universal-scene-description", "public.utf8-plain-text"], reaches: "public.3d-content"),
        Row(
            identifier: "public.avif", extensions: ["avif", "avifs"], mimeTypes: ["image/avif"],
            parents: ["public.heif-standard"], reaches: "public.image"),
    ]

    @Test(arguments: rows)
    func rowAnswersThroughTheRegistry(_ row: Row) throws {
        let type = try #require(registry.declaredType(row.identifier))
        #expect(type.tags(.filenameExtension) == row.extensions)
        #expect(type.tags(.mimeType) == row.mimeTypes)
        #expect(type.declaredParents == row.parents)
        #expect(type.localizedDescription?.isEmpty == false)
        for ext in row.extensions {
            #expect(registry.type(filenameExtension: ext)?.identifier == row.identifier, "\(ext)")
            #expect(registry.type(filenameExtension: ext.uppercased())?.identifier == row.identifier, "\(ext)")
        }
        for mime in row.mimeTypes {
            #expect(registry.type(mimeType: mime)?.identifier == row.identifier, "\(mime)")
        }
        for parent in row.parents + [row.reaches] {
            let supertype = try #require(registry.declaredType(parent), "\(parent)")
            #expect(type.conforms(to: supertype), "\(row.identifier) conforms to \(parent)")
        }
        #expect(type.declaration?.kind == (row.identifier == "public.avif" ? .imported : .exported))
        #expect(type.origin?.file == "Data/Additions.plist")
    }

    /// A replaced macOS 12 type keeps its place among the bundled types and
    /// is declared once; the kernel trace keeps every supertype it had.
    @Test func replacedTypesKeepTheirPlaceAndAncestry() throws {
        let ktrace = try #require(registry.declaredType("com.apple.ktrace"))
        let old = Set(["public.data", "public.log", "public.item"])
        #expect(old.isSubset(of: Set(ktrace.supertypes.map(\.identifier))))
        let all = registry.types(declaredIn: { _ in true }).map { $0.identifier.lowercased() }
        #expect(all.filter { $0 == "com.apple.ktrace" }.count == 1)
        #expect(all.filter { $0 == "com.pixar.universal-scene-description" }.count == 1)
        // macOS 12's kernel trace came before the file-name-extension type; the replacement stands there too.
        let ktraceIndex = try #require(all.firstIndex(of: "com.apple.ktrace"))
        #expect(ktraceIndex < all.firstIndex(of: "public.filename-extension")!)
        #expect(
            registry.types(tag: "usda", tagClass: .filenameExtension).map(\.identifier) == [
                "com.pixar.universal-scene-description-utf8"
            ])
        let usd = try #require(registry.declaredType("com.pixar.universal-scene-description"))
        #expect(!usd.tags(.filenameExtension).contains("usda"))
        let rowNames = Self.rows.map(\.identifier) + Self.rows.flatMap(\.extensions)
        let aboutRows = registry.diagnostics.filter { diagnostic in
            diagnostic.severity != .note && rowNames.contains { "\(diagnostic)".contains($0) }
        }
        #expect(aboutRows.isEmpty)
    }
}
