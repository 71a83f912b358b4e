import Testing

@testable import UniformTypes

@Suite struct DynamicIdentifierTests {
    @Test(arguments: [
        ("sql", "public.data", "dyn.ah62d4rv4ge81g6pq"),
        ("conf", "public.data", "dyn.ah62d4rv4ge80g55sq2"),
        ("zip", "public.content", "dyn.ah62d4qmxhk2x48xmsa"),
    ])
    func matchesApplesIdentifiers(tag: String, parent: String, expected: String) throws {
        #expect(DynamicIdentifier.make(tag: tag, tagClass: .filenameExtension, conformingTo: parent) == expected)
        let decoded = try #require(DynamicIdentifier.decode(expected))
        #expect(decoded.conformsTo == [parent])
        #expect(decoded.tags == [TagSpecification(.filenameExtension, [tag])])
    }

    @Test func withoutConformance() throws {
        #expect(DynamicIdentifier.make(tag: "rs", tagClass: .filenameExtension) == "dyn.age81e62")
        let decoded = try #require(DynamicIdentifier.decode("dyn.age81e62"))
        #expect(decoded.conformsTo.isEmpty)
        #expect(decoded.tags == [TagSpecification(.filenameExtension, ["rs"])])
    }

    @Test func registryLookupsGiveTheSameIdentifiers() {
        let registry = TypeRegistry.bundled
        #expect(registry.type(filenameExtension: "sql")?.identifier == "dyn.ah62d4rv4ge81g6pq")
        #expect(registry.type(filenameExtension: "conf")?.identifier == "dyn.ah62d4rv4ge80g55sq2")
        #expect(registry.dynamicType(tag: "rs", tagClass: .filenameExtension).identifier == "dyn.age81e62")
        #expect(
            registry.type(tag: "qq", tagClass: .filenameExtension, conformingTo: nil)?.identifier
                == DynamicIdentifier.make(tag: "qq", tagClass: .filenameExtension))
        #expect(
            registry.type(
                tag: "zip", tagClass: .filenameExtension,
                conformingTo: registry.declaredType("public.content"))?.identifier == "dyn.ah62d4qmxhk2x48xmsa")
    }

    @Test(arguments: [
        ("x:y=z\\w", TagClass.mimeType, "com.example.weird:type"),
        ("ünïcödé", TagClass.osType, "public.image"),
        ("a", TagClass("org.example.custom-class"), "public.movie"),
    ])
    func roundTripsAnyTagAndClass(tag: String, tagClass: TagClass, parent: String) throws {
        let identifier = DynamicIdentifier.make(tag: tag, tagClass: tagClass, conformingTo: parent)
        #expect(identifier.hasPrefix("dyn.a"))
        let decoded = try #require(DynamicIdentifier.decode(identifier))
        #expect(decoded.conformsTo == [parent])
        #expect(decoded.tags == [TagSpecification(tagClass, [tag])])
    }

    @Test(arguments: ["dyn.", "dyn.a", "dyn.b123", "dyn.aIII", "dyn.age81e63", "public.jpeg", "dyn.a0"])
    func rejectsMalformedIdentifiers(identifier: String) {
        #expect(DynamicIdentifier.decode(identifier) == nil)
    }

    @Test func dynamicTypesConformToWhatTheyEncode() throws {
        let registry = TypeRegistry.bundled
        let type = try #require(registry.type(identifier: "dyn.ah62d4rv4ge81g6pq"))
        #expect(type.isDynamic && !type.isDeclared)
        #expect(type.conforms(to: registry.declaredType("public.data")!))
        #expect(type.conforms(to: registry.declaredType("public.item")!))
        #expect(!type.conforms(to: registry.declaredType("public.text")!))
        #expect(type.preferredFilenameExtension == "sql")
        #expect(type == registry.type(filenameExtension: "SQL"))
    }
}
