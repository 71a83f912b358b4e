import Foundation
import PropertyLists
import Testing

@testable import UniformTypes

@Suite struct BundledDataTests {
    let registry = TypeRegistry.bundled

    @Test func carriesEveryCoreTypesDeclarationAndTheAdditions() {
        let all = BundledDeclarations.all
        #expect(all.count == 905)
        let core = all.filter { $0.origin.file == "Data/CoreTypes.plist" }
        #expect(core.filter { $0.kind == .exported }.count == 667)
        #expect(core.filter { $0.kind == .imported }.count == 206)
        let additions = all.filter { $0.origin.file == "Data/Additions.plist" }
        #expect(additions.filter { $0.kind == .imported }.count == 27)
        #expect(additions.filter { $0.kind == .exported }.count == 5)
        // Two of them replace the macOS 12 declarations of their identifiers.
        #expect(registry.count == 903)
        let extensions = Set(all.flatMap { $0.tags(.filenameExtension) }.map { $0.lowercased() })
        let mimeTypes = Set(all.flatMap { $0.tags(.mimeType) }.map { $0.lowercased() })
        #expect(extensions.count > 450)
        #expect(mimeTypes.count > 250)
    }

    @Test func bundledDataHasNoErrors() {
        #expect(registry.diagnostics.filter { $0.severity == .error }.isEmpty)
    }

    /// Every bundled type describes itself: its own description, or the one
    /// `Data/Descriptions.plist` gives it.
    @Test func everyBundledTypeHasADescription() {
        let undescribed = BundledDeclarations.all.filter { ($0.description ?? "").isEmpty }.map(\.identifier)
        #expect(undescribed.isEmpty)
        #expect(registry.declaredType("public.plain-text")?.localizedDescription == "plain text document")
        #expect(
            registry.declaredType("com.apple.macbookair-2020-gold")?.localizedDescription == "MacBook Air (2020, gold)")
        #expect(registry.declaredType("public.jpeg")?.localizedDescription == "JPEG image")
    }

    /// The compiled literal and the `Data/` files say the same thing.
    @Test func compiledDeclarationsMatchTheDataFiles() throws {
        let descriptionsFile = Fixtures.repositoryRoot.appendingPathComponent("Data/Descriptions.plist")
        let table = try PropertyList.parse(Array(Data(contentsOf: descriptionsFile)))
        var extraDescriptions: [String: String] = [:]
        for entry in table.dictionaryValue ?? [] {
            extraDescriptions[entry.key] = entry.value["UTTypeDescription"]?.stringValue
        }
        #expect(extraDescriptions.count == 163)
        var fromXML: [TypeDeclaration] = []
        for file in BundledDeclarations.files {
            let path = Fixtures.repositoryRoot.appendingPathComponent(file).path
            let reader = DeclarationReader.read(path: path, source: .bundled)
            #expect(reader.fileError == nil)
            fromXML += reader.declarations.map {
                var d = $0
                d.origin.file = file
                d.iconName = nil
                if d.description == nil { d.description = extraDescriptions[d.identifier] }
                return d
            }
        }
        #expect(fromXML.count == BundledDeclarations.all.count)
        for (a, b) in zip(fromXML, BundledDeclarations.all) {
            #expect(a == b, "\(a.identifier) differs: regenerate with tools/generate-bundled-declarations.py")
        }
    }

    @Test(arguments: [
        ("jpg", "public.jpeg"), ("JPEG", "public.jpeg"), (".png", "public.png"), ("pdf", "com.adobe.pdf"),
        ("mp4", "public.mpeg-4"), ("xml", "public.xml"), ("plist", "com.apple.property-list"),
        ("otf", "public.opentype-font"), ("key", "com.apple.iWork.Keynote.sffkey"), ("html", "public.html"),
        ("tgz", "org.gnu.gnu-zip-tar-archive"), ("md", "net.daringfireball.markdown"),
        ("toml", "io.toml"), ("wasm", "org.webassembly.wasm"), ("ts", "public.mpeg-2-transport-stream"),
        ("swift", "public.swift-source"), ("zip", "public.zip-archive"),
    ])
    func extensionLookups(ext: String, identifier: String) throws {
        let type = try #require(registry.type(filenameExtension: ext))
        #expect(type.identifier == identifier)
    }

    @Test(arguments: [
        ("image/jpeg", "public.jpeg"), ("IMAGE/PNG", "public.png"), ("text/html; charset=utf-8", "public.html"),
        ("application/pdf", "com.adobe.pdf"), ("application/zip", "public.zip-archive"),
        ("text/markdown", "net.daringfireball.markdown"), ("application/json", "public.json"),
    ])
    func mimeLookups(mime: String, identifier: String) throws {
        #expect(registry.type(mimeType: mime)?.identifier == identifier)
    }

    @Test func sampleOfAppleFacts() throws {
        let jpeg = try #require(registry.declaredType("public.jpeg"))
        #expect(jpeg.localizedDescription == "JPEG image")
        #expect(jpeg.preferredFilenameExtension == "jpeg")
        #expect(jpeg.preferredMIMEType == "image/jpeg")
        #expect(jpeg.tags(.osType) == ["JPEG"])
        #expect(jpeg.declaredParents == ["public.image"])
        #expect(jpeg.declaration?.kind == .exported)
        #expect(jpeg.origin?.file == "Data/CoreTypes.plist")
        #expect(jpeg.origin?.position.line != nil)

        let html = try #require(registry.declaredType("public.html"))
        #expect(html.conforms(to: registry.declaredType("public.text")!))
        let appFile = try #require(registry.declaredType("com.apple.application-file"))
        #expect(appFile.declaredParents == ["com.apple.application", "public.data"])
        // A type declared with an array of parents keeps their order.
        #expect(
            registry.declaredType("public.unix-executable")?.declaredParents == ["public.data", "public.executable"])
        #expect(registry.declaredType("public.mpeg-4-audio")?.tags(.filenameExtension) == ["mp4", "mpg4"])
        #expect(registry.declaredType("public.folder") != nil)
    }
}
