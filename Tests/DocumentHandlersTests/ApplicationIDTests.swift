import DocumentHandlers
import Testing

/// The application IDs a shell is offered: those `HandlerResolver.handler(_:)`
/// accepts, and no other.
@Suite struct ApplicationIDTests {
    @Test func offersUsableDesktopEntriesAndBundlesStartingWithThePrefix() throws {
        let tree = HandlerTree()
        tree.desktop("home-share/applications/org.example.Editor.desktop", name: "Editor", mime: ["text/plain"])
        tree.desktop("share/applications/org.example.Viewer.desktop", name: "Viewer", mime: [])
        tree.desktop("share/applications/kde/paint.desktop", name: "Paint", mime: ["image/png"])
        tree.desktop("share/applications/org.example.Hidden.desktop", name: "Hidden", mime: [], extra: "Hidden=true")
        tree.desktop(
            "share/applications/org.example.Missing.desktop", name: "Missing", mime: [], exec: "no-such-program-here")
        tree.write("share/applications/org.example.Link.desktop", "[Desktop Entry]\nType=Link\nName=L\nURL=x\n")
        HandlerResolverTests.bundle(
            tree, "bundles/Notes.app", id: "org.example.notes", name: "Notes",
            types: HandlerResolverTests.documentType("Notes", extensions: ["note"]))
        let catalog = HandlerCatalog(searchPath: tree.searchPath(bundles: [tree.root + "/bundles/Notes.app"]))

        #expect(
            catalog.applicationIDs(startingWith: "org.example.")
                == ["org.example.Editor.desktop", "org.example.Viewer.desktop", "org.example.notes"])
        #expect(catalog.applicationIDs(startingWith: "").contains("kde-paint.desktop"))
        #expect(catalog.applicationIDs(startingWith: "org.example.V") == ["org.example.Viewer.desktop"])
        #expect(catalog.applicationIDs(startingWith: "org.example.", limit: 1) == ["org.example.Editor.desktop"])
        #expect(catalog.applicationIDs(startingWith: "org.example.", limit: 0).isEmpty)
        // Each ID offered is one the resolver takes.
        let resolver = try tree.resolver(bundles: [tree.root + "/bundles/Notes.app"])
        for id in catalog.applicationIDs(startingWith: "") {
            if case .failure(let problem) = resolver.handler(id) { Issue.record("\(id) is offered: \(problem)") }
        }
    }
}
