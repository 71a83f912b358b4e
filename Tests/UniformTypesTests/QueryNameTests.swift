import Testing
import UniformTypes

/// The words a shell is offered where a type is taken.
@Suite struct QueryNameTests {
    let registry = TypeRegistry.bundled

    @Test func extensionsMIMETypesAndIdentifiersStartingWithThePrefix() {
        let jp = registry.queryNames(startingWith: "jp")
        #expect(jp.contains("jpg") && jp.contains("jpeg"))
        #expect(jp.allSatisfy { $0.hasPrefix("jp") })
        #expect(registry.queryNames(startingWith: "image/pn").contains("image/png"))
        #expect(registry.queryNames(startingWith: "public.jp").contains("public.jpeg"))
        #expect(!registry.queryNames(startingWith: "public.jp").contains("public.png"))
        // A leading dot, as `uti .tar` takes it, gives extensions only.
        let dotted = registry.queryNames(startingWith: ".jp")
        #expect(dotted.contains(".jpg") && dotted.allSatisfy { $0.hasPrefix(".jp") })
        // ASCII case is ignored; names are spelled as declared.
        #expect(registry.queryNames(startingWith: "JP") == jp)
        #expect(registry.queryNames(startingWith: "no-such-type-prefix").isEmpty)
    }

    @Test func sortedOnceAndBounded() {
        let all = registry.queryNames(startingWith: "", limit: .max)
        #expect(all == all.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(Set(all).count == all.count)
        #expect(all.count > TypeRegistry.queryNameLimit)
        #expect(registry.queryNames(startingWith: "").count == TypeRegistry.queryNameLimit)
        #expect(registry.queryNames(startingWith: "", limit: 3) == Array(all.prefix(3)))
        #expect(registry.queryNames(startingWith: "jp", limit: 0).isEmpty)
    }
}
