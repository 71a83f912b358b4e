import Foundation
import Testing
import UniformTypes

@testable import DocumentHandlers

/// What `set-default` checks before it writes: the subject a word names,
/// each request's application and role, keys set twice, and the requests
/// `--all-declared` makes.
@Suite struct DefaultsPlanTests {
    /// Reads a word as `uti` reads a query, enough for these tests: a MIME
    /// type, a declared identifier, else an extension.
    static func lookUp(
        _ registry: TypeRegistry
    ) -> (String) throws(DefaultsSubject.Problem) -> DefaultsSubject.NamedType {
        { word throws(DefaultsSubject.Problem) in
            if let type = registry.declaredType(word) { return .init(type: type, isExtension: false) }
            let mime = word.contains("/")
            let data = registry.declaredType("public.data")
            guard
                let type = registry.types(
                    tag: word, tagClass: mime ? .mimeType : .filenameExtension, conformingTo: data
                ).first
            else { throw DefaultsSubject.Problem("no type for \"\(word)\"") }
            return .init(type: type, isExtension: !mime)
        }
    }

    static func subject(
        _ word: String, _ registry: TypeRegistry, schemes: Set<String> = []
    ) -> Result<DefaultsSubject, DefaultsSubject.Problem> {
        Result { () throws(DefaultsSubject.Problem) in
            try DefaultsSubject.named(word, registry: registry, claimedSchemes: schemes, lookUp: lookUp(registry))
        }
    }

    @Test func aWordNamesATypeASchemeOrAWildcard() throws {
        let registry = try HandlerTree().resolver().registry
        let png = try Self.subject("png", registry).get()
        #expect(png.label == "public.png" && png.keys == ["image/png"] && png.scheme == nil && !png.isWildcard)
        let handler = try Self.subject("x-scheme-handler/HTTPS", registry).get()
        #expect(handler.label == "URL scheme https" && handler.keys == ["x-scheme-handler/https"])
        let url = try Self.subject("https://example.org/a", registry).get()
        #expect(url.scheme?.name == "https" && url.keys == ["x-scheme-handler/https"])
        let wildcard = try Self.subject("Image/*", registry).get()
        #expect(wildcard.isWildcard && wildcard.label == "every image/ type" && wildcard.keys.isEmpty)
        #expect(wildcard.isAbstract && wildcard.formerKey == "image/*")
        #expect(wildcard.type.identifier == "public.data")
        // A type without a MIME type stands for the types under it (`expanded(for:in:)`).
        let folder = try Self.subject("public.folder", registry).get()
        #expect(folder.keys.isEmpty && folder.formerKey == "public.folder")
        // A bare word no type claims is the scheme an application claims; a leading dot keeps it an extension.
        #expect(try Self.subject("rdp", registry, schemes: ["rdp"]).get().keys == ["x-scheme-handler/rdp"])
        #expect(try Self.subject(".png", registry, schemes: ["png"]).get().keys == ["image/png"])
        #expect(try Self.subject("png:", registry, schemes: ["png"]).get().scheme?.name == "png")
    }

    @Test(arguments: [
        ("png", ["png"], "is both an extension (public.png) and a URL scheme some application claims"),
        ("zzqq", [], "no type claims the extension \"zzqq\" and no application claims the URL scheme"),
        ("image/**", [], "a wildcard names a MIME type's major part and /* (image/*)"),
        ("1x:", [], "is neither a type nor a URL scheme"),
        ("a b", [], "holds U+0020 (a space or an invisible character)"),
        ("\u{FEFF}png", [], "holds U+FEFF"),
    ])
    func aWordThatNamesNoSubjectIsRefused(word: String, schemes: [String], problem: String) throws {
        let registry = try HandlerTree().resolver().registry
        #expect {
            try Self.subject(word, registry, schemes: Set(schemes)).get()
        } throws: { error in
            (error as? DefaultsSubject.Problem)?.description.hasPrefix(problem) == true
        }
    }

    @Test func everyRequestIsCheckedAndEachRefusalKeepsItsPlace() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/viewer.desktop", name: "Viewer", mime: ["image/png"])
        HandlerResolverTests.bundle(
            tree, "Applications/Show.app", id: "com.example.show", name: "Show",
            types: HandlerResolverTests.documentType("Images", role: "Viewer", contentTypes: ["public.image"]))
        let resolver = try tree.resolver(bundles: [tree.root + "/Applications"])
        let requests = [
            DefaultsPlan.Request(subject: "png", app: "viewer.desktop", role: nil, place: "s:1"),
            DefaultsPlan.Request(subject: "png", app: "nosuch.desktop", role: nil, place: "s:2"),
            DefaultsPlan.Request(subject: "image/*", app: "com.example.show", role: .viewer, place: "s:3"),
            DefaultsPlan.Request(subject: "https:", app: "com.example.show", role: .viewer, place: "s:4"),
            DefaultsPlan.Request(subject: "jpg", app: "viewer.desktop", role: .viewer, place: "s:5"),
            DefaultsPlan.Request(subject: "jpg", app: "com.example.show", role: .editor, place: "s:6"),
            DefaultsPlan.Request(subject: "image/png", app: "com.example.show", role: nil, place: "s:7"),
            DefaultsPlan.Request(subject: "png", app: "com.example.show", role: .viewer, place: "s:8"),
            DefaultsPlan.Request(subject: "a b", app: "com.example.show", role: nil, place: "s:9"),
        ]
        let plan = DefaultsPlan(requests, resolver: resolver, lookUp: Self.lookUp(resolver.registry))
        #expect(plan.changes == nil)
        var messages: [String] = []
        for step in plan.steps {
            switch step {
            case .change(let subject, let change):
                messages.append("change \(subject.label) \(change.keys) \(change.handlerID ?? "-")")
            case .refused(let place, let refusal):
                messages.append("\(place) " + refusal.message(value: { "<\($0)>" }, problem: { "[\($0)]" }))
            }
        }
        #expect(messages.count == requests.count)
        #expect(messages[0] == "change public.png [\"image/png\"] viewer.desktop")
        #expect(messages[1].hasPrefix("s:2 <nosuch.desktop>: ["))
        #expect(messages[2] == "s:3 <image/*>: a wildcard default is for all roles")
        #expect(messages[3] == "s:4 <https:>: URL schemes have no roles; set the default for all roles")
        #expect(
            messages[4]
                == "s:5 <viewer.desktop> is a desktop entry, which declares no roles; its default is for all roles")
        #expect(messages[5].hasPrefix("s:6 <com.example.show> cannot be the <Editor> default for <public.jpeg>: ["))
        #expect(messages[6] == "s:7 <image/png> sets <image/png> again (<s:1> set it)")
        // Another role's group is another key.
        #expect(messages[7] == "change public.png [\"image/png\"] com.example.show")
        #expect(messages[8].hasPrefix("s:9 <a b>: [holds U+0020"))
        // Without the refused requests, the plan's changes are the requests' own, in order.
        let good = DefaultsPlan([requests[0], requests[7]], resolver: resolver, lookUp: Self.lookUp(resolver.registry))
        let changes = try #require(good.changes)
        #expect(changes.map(\.change.role) == [nil, .viewer])
        #expect(changes.map(\.change.handlerID) == ["viewer.desktop", "com.example.show"])
        #expect(
            "\(DefaultsPlan.Refusal.repeated("png", key: "image/png", earlier: "s:1"))"
                == "png sets image/png again (s:1 set it)")
    }

    @Test func anApplicationsDeclaredTypesMakeOneRequestPerKey() throws {
        let tree = HandlerTree()
        tree.desktop(
            "share/applications/viewer.desktop", name: "Viewer",
            mime: ["image/png", "IMAGE/PNG", "image/*", "x-scheme-handler/gopher", "text/bad key"],
            exec: "/bin/true %U")
        // An application that takes local files only cannot be a scheme's default: the scheme is left out.
        tree.desktop(
            "share/applications/files.desktop", name: "Files", mime: ["text/plain", "x-scheme-handler/gopher"])
        let resolver = try tree.resolver()
        let files = DefaultsPlan.declaredRequests(of: "files.desktop", resolver: resolver)
        #expect(files.requests.map(\.subject) == ["text/plain"])
        #expect(files.unwritable.map(\.typeName) == ["x-scheme-handler/gopher"])
        let (requests, unwritable) = DefaultsPlan.declaredRequests(of: "viewer.desktop", resolver: resolver)
        #expect(requests.map(\.subject) == ["image/png", "image/*", "x-scheme-handler/gopher"])
        let keys = requests.compactMap(\.resolved).map(\.keys)
        // The wildcard as the image types it stands for, image/png once.
        #expect(keys.count == 3 && keys[0] == ["image/png"] && keys[2] == ["x-scheme-handler/gopher"])
        #expect(keys[1].contains("image/jpeg") && !keys[1].contains("image/png") && !keys[1].contains("image/*"))
        #expect(requests.compactMap(\.resolved).map(\.isWildcard) == [false, true, false])
        #expect(requests.allSatisfy { $0.app == "viewer.desktop" && $0.role == nil })
        #expect(unwritable.map(\.typeName) == ["text/bad key"])
        #expect(DefaultsPlan.declaredRequests(of: "nosuch.desktop", resolver: resolver).requests.isEmpty)
        // The plan takes the worked-out subjects as they are.
        let plan = DefaultsPlan(requests, resolver: resolver, lookUp: Self.lookUp(resolver.registry))
        #expect(plan.changes?.map(\.subject.label) == ["public.png", "every image/ type", "URL scheme gopher"])
        // The subject's candidate: the application is offered for PNG, and for the wildcard through its own claim.
        let png = try #require(plan.changes?.first?.subject)
        #expect(png.candidate("viewer.desktop", in: resolver)?.handler.id == "viewer.desktop")
        #expect(png.candidate("other.desktop", in: resolver) == nil)
        let wildcard = try #require(plan.changes?[1].subject)
        #expect(wildcard.candidate("viewer.desktop", in: resolver)?.claim.typeName.lowercased() == "image/*")
    }

    /// An association of a wildcard or an abstract type is written as MIME
    /// types: added for every one it stands for, removed where the
    /// application is offered; a removal with none is refused.
    @Test func anAssociationOfAWildcardIsWrittenAsMIMETypes() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/viewer.desktop", name: "Viewer", mime: ["image/png"])
        let resolver = try tree.resolver()
        func keys(_ action: UserDefaultsWriter.Change.Action, _ word: String) -> [String]? {
            let request = DefaultsPlan.Request(subject: word, app: "viewer.desktop", role: nil, action: action)
            return DefaultsPlan([request], resolver: resolver, lookUp: Self.lookUp(resolver.registry)).changes?
                .first?.change.keys
        }
        let added = try #require(keys(.addAssociation, "image/*"))
        #expect(added.contains("image/png") && added.contains("image/jpeg") && !added.contains("image/*"))
        #expect(added.allSatisfy { $0.contains("/") && !$0.contains("*") })
        #expect(keys(.removeAssociation, "image/*") == ["image/png"])
        #expect(keys(.removeAssociation, "public.image") == ["image/png"])
        let subject = try Self.subject("public.image", resolver.registry).get()
        #expect(subject.expanded(removing: "viewer.desktop", in: resolver).keys == ["image/png"])
        #expect(subject.expanded(removing: "nosuch.desktop", in: resolver).keys.isEmpty)
        let request = DefaultsPlan.Request(
            subject: "audio/*", app: "viewer.desktop", role: nil, action: .removeAssociation)
        let plan = DefaultsPlan([request], resolver: resolver, lookUp: Self.lookUp(resolver.registry))
        guard case .refused(_, let refusal) = try #require(plan.steps.first) else {
            Issue.record("audio/* is not refused")
            return
        }
        #expect(
            refusal.description
                == "audio/*: viewer.desktop is offered for none of the MIME types of every audio/ type; nothing to remove"
        )
    }

    @Test func aRemovalSaysWhetherItClearedADefault() {
        let removal = UserDefaultsWriter.Change(
            keys: ["text/plain"], handlerID: "a.desktop", action: .removeAssociation)
        let fromDefaults = UserDefaultsWriter.Edit(
            group: "Default Applications", key: "TEXT/plain", before: ["a.desktop", "b.desktop"], after: ["b.desktop"])
        let fromAdded = UserDefaultsWriter.Edit(
            group: UserDefaultsWriter.addedGroup, key: "text/plain", before: ["a.desktop"], after: [])
        #expect(removal.removedDefault(in: [fromDefaults]))
        #expect(!removal.removedDefault(in: [fromAdded]))
        #expect(!removal.removedDefault(in: []))
        let setting = UserDefaultsWriter.Change(keys: ["text/plain"], handlerID: "a.desktop")
        #expect(!setting.removedDefault(in: [fromDefaults]))
    }
}
