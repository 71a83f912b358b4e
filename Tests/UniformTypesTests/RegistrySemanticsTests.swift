import Foundation
import Testing

@testable import UniformTypes

@Suite struct RegistrySemanticsTests {
    let registry = TypeRegistry.bundled
    func type(_ identifier: String) -> UniformType { registry.declaredType(identifier)! }

    @Test func identifiersAndTagsIgnoreCase() throws {
        #expect(registry.declaredType("PUBLIC.JPEG") == type("public.jpeg"))
        #expect(registry.declaredType("Public.Jpeg")?.identifier == "public.jpeg")
        #expect(registry.type(filenameExtension: ".JpG") == type("public.jpeg"))
        #expect(registry.type(mimeType: " Image/JPEG ; q=1") == type("public.jpeg"))
        // OSTypes are exact.
        #expect(registry.types(tag: "JPEG", tagClass: .osType).first == type("public.jpeg"))
        #expect(registry.types(tag: "jpeg", tagClass: .osType).first?.isDynamic == true)
        #expect(registry.type(filenameExtension: "") == nil)
        #expect(registry.type(filenameExtension: ".") == nil)
    }

    @Test func claimantsAreRankedBestFirst() {
        #expect(
            registry.types(tag: "mp4", tagClass: .filenameExtension).map(\.identifier)
                == ["public.mpeg-4", "public.mpeg-4-audio"])
        // Public before others, whatever the declaration order.
        #expect(
            registry.types(tag: "xml", tagClass: .filenameExtension).map(\.identifier)
                == ["public.xml", "com.microsoft.word.wordml"])
        // Among the rest, a type conforming to public.data before one that does not.
        #expect(
            registry.types(tag: "app", tagClass: .filenameExtension).map(\.identifier)
                == ["com.apple.application-file", "com.apple.application-bundle"])
        #expect(
            registry.types(tag: "plist", tagClass: .filenameExtension).first?.identifier == "com.apple.property-list")
    }

    @Test func conformanceFilterGivesADynamicTypeWhenNothingPasses() throws {
        let audio = type("public.audio")
        #expect(registry.type(filenameExtension: "mp4", conformingTo: audio)?.identifier == "public.mpeg-4-audio")
        let none = try #require(registry.type(filenameExtension: "jpg", conformingTo: audio))
        #expect(none.isDynamic)
        #expect(
            none.identifier
                == DynamicIdentifier.make(tag: "jpg", tagClass: .filenameExtension, conformingTo: "public.audio"))
        #expect(none.conforms(to: audio))
        let bundle = try #require(registry.type(filenameExtension: "app", conformingTo: type("com.apple.package")))
        #expect(bundle.identifier == "com.apple.application-bundle")
    }

    @Test func conformanceIsReflexiveTransitiveAndMultiParent() {
        let jpeg = type("public.jpeg")
        #expect(jpeg.conforms(to: jpeg))
        #expect(jpeg.conforms(to: type("public.image")))
        #expect(jpeg.conforms(to: type("public.item")))
        #expect(jpeg.conforms(to: type("public.content")))
        #expect(!jpeg.conforms(to: type("public.text")))
        #expect(!type("public.image").conforms(to: jpeg))
        #expect(jpeg.isSubtype(of: type("public.image")) && !jpeg.isSubtype(of: jpeg))
        #expect(type("public.image").isSupertype(of: jpeg))
        let executable = type("public.unix-executable")
        #expect(executable.conforms(to: type("public.data")) && executable.conforms(to: type("public.executable")))
    }

    @Test func supertypesAreOrderedNearestFirstWithoutRepeats() {
        #expect(
            type("public.jpeg").orderedSupertypes.map(\.identifier)
                == ["public.image", "public.data", "public.content", "public.item"])
        let html = type("public.html").orderedSupertypes.map(\.identifier)
        #expect(html.first == "public.text")
        #expect(Set(html).count == html.count)
        #expect(type("public.html").supertypes == Set(type("public.html").orderedSupertypes))
    }

    @Test func descendantsAndTheirTags() {
        let image = type("public.image")
        let descendants = registry.descendants(of: image).map(\.identifier)
        #expect(descendants.contains("public.jpeg") && descendants.contains("public.png"))
        #expect(!descendants.contains("public.image"))
        #expect(!descendants.contains("public.plain-text"))
        let extensions = registry.tags(of: image, tagClass: .filenameExtension, includingDescendants: true)
        #expect(extensions.contains("jpg") && extensions.contains("png") && extensions.contains("heic"))
        #expect(!extensions.contains("txt"))
        #expect(Set(extensions.map { $0.lowercased() }).count == extensions.count)
        #expect(registry.tags(of: image, tagClass: .filenameExtension, includingDescendants: false).isEmpty)
    }

    @Test func typesFromAnotherRegistryAreFoundByIdentifier() {
        let other = Fixtures.registry("cookbook-Info.plist")
        let text = registry.declaredType("public.text")!
        #expect(other.descendants(of: text).contains { $0.identifier == "com.example.cookbookfile" })
        #expect(other.tags(of: text, tagClass: .filenameExtension, includingDescendants: true).contains("cookbook"))
        #expect(!registry.tags(of: text, tagClass: .filenameExtension, includingDescendants: true).contains("cookbook"))
        #expect(other.declaredType("com.example.cookbookfile")!.conforms(to: text))
    }

    @Test func preferredTagIsTheFirstDeclared() {
        #expect(type("public.mpeg-4").preferredMIMEType == "video/mp4")
        #expect(type("public.html").preferredFilenameExtension == "html")
    }
}

@Suite struct UserDeclarationTests {
    @Test func appInfoPlistDeclaresTypes() throws {
        for file in ["cookbook-Info.plist", "cookbook-binary-Info.plist"] {
            let registry = Fixtures.registry(file)
            let cookbook = try #require(registry.type(filenameExtension: "cookbook"))
            #expect(cookbook.identifier == "com.example.cookbookfile")
            #expect(cookbook.localizedDescription == "Cookbook recipe")
            #expect(cookbook.conforms(to: registry.declaredType("public.text")!))
            #expect(
                cookbook.orderedSupertypes.map(\.identifier) == [
                    "public.text", "public.data", "public.content", "public.item",
                ])
            #expect(cookbook.declaration?.kind == .exported)
            #expect(cookbook.origin?.source == .user)
            #expect(cookbook.origin?.file.hasSuffix(file) == true)
            #expect(registry.type(mimeType: "application/x-cookbook") == cookbook)
        }
        let registry = Fixtures.registry("cookbook-Info.plist")
        let cookbook = try #require(registry.declaredType("com.example.cookbookfile"))
        #expect(cookbook.origin?.position == .line(11))
        #expect(cookbook.referenceURL == "https://example.com/cookbook")
        #expect(cookbook.version == "2.1")
        #expect(cookbook.declaration?.iconName == "CookbookIcon")
        let card = try #require(registry.type(filenameExtension: "rcard"))
        #expect(card.identifier == "com.example.recipe-card")
        #expect(card.declaration?.kind == .imported)
        #expect(card.conforms(to: cookbook) && card.conforms(to: registry.declaredType("public.image")!))
        #expect(card.preferredFilenameExtension == "recipecard")
    }

    @Test func userDeclarationsOverrideBundledOnesAndSaySo() throws {
        let registry = Fixtures.registry("overrides.plist")
        let pdf = try #require(registry.declaredType("com.adobe.pdf"))
        #expect(pdf.localizedDescription == "PDF, redeclared")
        #expect(registry.type(filenameExtension: "pdfx") == pdf)
        #expect(registry.overridden(pdf).first?.file == "Data/CoreTypes.plist")
        #expect(
            registry.diagnostics.contains { $0.severity == .note && $0.message.contains("com.adobe.pdf overrides") })
        // An imported declaration never replaces an exported one.
        let png = try #require(registry.declaredType("public.png"))
        #expect(png.localizedDescription == "PNG image")
        #expect(registry.diagnostics.contains { $0.message.contains("imported public.png is ignored") })
        // A new type claiming a taken extension is listed after the first declared claimant.
        #expect(
            registry.types(tag: "md", tagClass: .filenameExtension).map(\.identifier)
                == ["net.daringfireball.markdown", "com.example.markdown-flavor"])
    }

    @Test func badDeclarationsAreReportedWithTheirLines() {
        let registry = Fixtures.registry("bad-declarations.plist")
        let file = Fixtures.path("bad-declarations.plist")
        let found = registry.diagnostics.filter { $0.file == file }
        func has(_ severity: Diagnostic.Severity, _ line: Int, _ text: String) -> Bool {
            found.contains { $0.severity == severity && $0.position == .line(line) && $0.message.contains(text) }
        }
        #expect(has(.error, 6, "no UTTypeIdentifier"))
        #expect(has(.error, 12, "invalid identifier"))
        #expect(has(.warning, 14, "com.example.missing-parent, which no source declares"))
        #expect(has(.warning, 24, "duplicate declaration of com.example.twice"))
        #expect(has(.warning, 40, "leading dot"))
        #expect(has(.warning, 45, "unknown key UTTypeConformTo"))
        #expect(has(.error, 49, "UTTypeIdentifier is an integer"))
        #expect(found.contains { $0.message.contains("com.example.both is both exported and imported") })
        #expect(
            found.contains {
                $0.severity == .warning
                    && $0.message.contains("\"txt\" of com.example.texty is also claimed by public.plain-text")
            })
        // What is valid still loads.
        #expect(registry.declaredType("com.example.orphan") != nil)
        #expect(registry.declaredType("com.example.both")?.declaration?.kind == .exported)
        #expect(registry.type(filenameExtension: "txt")?.identifier == "public.plain-text")
    }

    @Test func cyclesAreReportedAndTraversalStaysFinite() throws {
        let registry = Fixtures.registry("cycle.plist")
        let cycles = registry.diagnostics.filter { $0.severity == .error && $0.message.hasPrefix("conformance cycle") }
        #expect(cycles.count == 2)
        #expect(cycles.contains { $0.message.contains("com.example.a") && $0.message.contains("com.example.c") })
        #expect(cycles.contains { $0.message.contains("com.example.self -> com.example.self") })
        let a = try #require(registry.declaredType("com.example.a"))
        let b = try #require(registry.declaredType("com.example.b"))
        #expect(a.conforms(to: b) && b.conforms(to: a))
        #expect(
            a.orderedSupertypes.map(\.identifier) == ["com.example.b", "public.data", "com.example.c", "public.item"])
        #expect(!a.conforms(to: registry.declaredType("public.image")!))
        #expect(registry.descendants(of: a).count == 2)
        #expect(registry.declaredType("com.example.self")?.orderedSupertypes.isEmpty == true)
    }

    @Test func unreadableAndMalformedFilesAreFileErrors() throws {
        try withTemporaryDirectory { dir in
            let broken = dir.appendingPathComponent("broken.plist")
            try "<plist><dict><key>a</key>\n<string>x</dict></plist>".write(
                to: broken, atomically: true, encoding: .utf8)
            let reader = DeclarationReader.read(path: broken.path, source: .user)
            #expect(reader.fileError?.message.hasPrefix("malformed property list") == true)
            #expect(reader.fileError?.position == .line(2))
            let missing = DeclarationReader.read(path: dir.appendingPathComponent("nope.plist").path, source: .user)
            #expect(missing.fileError?.message.contains("No such file") == true)
            let folder = DeclarationReader.read(path: dir.path, source: .user)
            #expect(folder.fileError?.message == "is a directory")
        }
    }
}

@Suite struct SearchPathTests {
    @Test func xdgOrderAndExplicitPaths() {
        let path = DeclarationSearchPath.environment([
            "XDG_DATA_DIRS": "/a:/b", "XDG_DATA_HOME": "/home/u/.data", "UTI_DECLARATIONS": "/x.plist:/y",
        ])
        #expect(path.optionalFolders == ["/b/uti/types", "/a/uti/types", "/home/u/.data/uti/types"])
        #expect(path.explicitPaths == ["/x.plist", "/y"])
        let defaults = DeclarationSearchPath.environment(["HOME": "/home/u"])
        #expect(
            defaults.optionalFolders == [
                "/usr/share/uti/types", "/usr/local/share/uti/types", "/home/u/.local/share/uti/types",
            ])
    }

    @Test func loaderUsesFoldersInOrderSkipsBrokenFoundFilesAndRefusesBrokenNamedOnes() throws {
        try withTemporaryDirectory { dir in
            let home = dir.appendingPathComponent("home/uti/types")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Fixtures.path("cookbook-Info.plist"), toPath: home.appendingPathComponent("b.plist").path)
            try "ignored".write(to: home.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
            let env = ["XDG_DATA_HOME": dir.appendingPathComponent("home").path, "XDG_DATA_DIRS": "/nonexistent"]
            let registry = try TypeRegistry.load(RegistrySources(environment: env), cache: nil).registry
            #expect(registry.type(filenameExtension: "cookbook")?.identifier == "com.example.cookbookfile")
            // A later --declarations file overrides the XDG one.
            let overriding = RegistrySources(extraPaths: [Fixtures.path("overrides.plist")], environment: env)
            let registry2 = try TypeRegistry.load(overriding, cache: nil).registry
            #expect(registry2.declaredType("com.adobe.pdf")?.localizedDescription == "PDF, redeclared")

            // A broken file found in a search folder is left out, with its
            // error; the other files still count.
            let broken = home.appendingPathComponent("a.plist").path
            try "<plist><dict>".write(toFile: broken, atomically: true, encoding: .utf8)
            let partial = try TypeRegistry.load(RegistrySources(environment: env), cache: nil).registry
            #expect(
                partial.skippedSources.map(\.description)
                    == [
                        "\(broken):1: error: malformed property list: Premature end of data in tag dict line 1; the file is skipped"
                    ])
            #expect(partial.type(filenameExtension: "cookbook")?.identifier == "com.example.cookbookfile")
            // Named, the same file stops the load.
            #expect(throws: TypeRegistry.LoadError.self) {
                try TypeRegistry.load(RegistrySources(extraPaths: [broken], environment: env), cache: nil)
            }
            #expect(throws: TypeRegistry.LoadError.self) {
                let missing = RegistrySources(
                    extraPaths: ["/nonexistent/x.plist"], environment: ["XDG_DATA_DIRS": "/nonexistent"])
                try TypeRegistry.load(missing, cache: nil)
            }
        }
    }
}

@Suite struct FileTypingBundledTests {
    let typing = FileTyping(registry: .bundled)

    @Test func extensionsOfNames() {
        #expect(FileTyping.extensions(of: "archive.tar.gz") == ["tar.gz", "gz"])
        #expect(FileTyping.extensions(of: ".profile").isEmpty)
        #expect(FileTyping.extensions(of: ".config.json") == ["json"])
        #expect(FileTyping.extensions(of: "trailing.").isEmpty)
        #expect(FileTyping.extensions(of: "README").isEmpty)
        #expect(FileTyping.fileName(of: "/a/b/c.txt/") == "c.txt")
    }

    /// Every candidate of every name up to 7 characters of an alphabet of
    /// dots and letters is each dot's suffix, as a plain walk finds them.
    @Test func extensionsOfEveryShortName() {
        func plain(_ name: String) -> [String] {
            let bytes = Array(name.utf8)
            return bytes.indices.filter { i in
                i > 0 && i + 1 < bytes.count && bytes[i] == UInt8(ascii: ".") && bytes[i - 1] != UInt8(ascii: ".")
            }.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) }
        }
        var names = [""]
        var checked = 0
        for _ in 0..<7 {
            names = names.flatMap { name in [".", "a", "b"].map { name + $0 } }
            for name in names {
                #expect(FileTyping.extensions(of: name) == plain(name), "\(name)")
                checked += 1
            }
        }
        #expect(checked == 3279)
    }

    /// A name of many dots gives the last extension and those of at most
    /// 255 bytes (no file name is longer): text in proportion to the name,
    /// not to the square of its dots.
    @Test func extensionsOfAHugeNameStayInProportion() {
        let name = String(repeating: "a.", count: 200_000) + "gz"
        let candidates = FileTyping.extensions(of: name)
        #expect(candidates.last == "gz")
        #expect(candidates.count == 127)  // "gz", "a.gz", … "a.…a.gz" of 254 bytes
        #expect(candidates.allSatisfy { $0.utf8.count <= 255 })
        let long = "x." + String(repeating: "y", count: 300)
        #expect(FileTyping.extensions(of: long) == [String(repeating: "y", count: 300)])
        #expect(FileTyping.extensions(of: "a." + long) == [String(repeating: "y", count: 300)])
    }

    @Test func typesByName() {
        #expect(typing.type(forName: "photo.JPG").type.identifier == "public.jpeg")
        #expect(typing.type(forName: "a.tar.gz").type.identifier == "org.gnu.gnu-zip-archive")
        #expect(typing.type(forName: "a.tar.gz").matchedExtension == "gz")
        #expect(typing.type(forName: "x.unknownext").type.isDynamic)
        #expect(typing.type(forName: "x.unknownext").basis == .unknown)
        #expect(typing.type(forName: "Makefile").type.identifier == "public.data")
    }

    @Test func fileSystemKinds() throws {
        try withTemporaryDirectory { dir in
            let fm = FileManager.default
            try fm.createDirectory(at: dir.appendingPathComponent("Tool.app"), withIntermediateDirectories: false)
            try fm.createDirectory(at: dir.appendingPathComponent("plain.d"), withIntermediateDirectories: false)
            try fm.createSymbolicLink(
                atPath: dir.appendingPathComponent("link.jpg").path, withDestinationPath: "/etc/hostname")
            #expect(mkfifo(dir.appendingPathComponent("pipe.txt").path, 0o600) == 0)
            #expect(
                (try typing.type(forPath: dir.appendingPathComponent("Tool.app").path)).type.identifier
                    == "com.apple.application-bundle")
            #expect(
                (try typing.type(forPath: dir.appendingPathComponent("plain.d").path)).type.identifier
                    == "public.folder")
            #expect(
                (try typing.type(forPath: dir.appendingPathComponent("link.jpg").path)).type.identifier
                    == "public.symlink")
            #expect(
                (try typing.type(forPath: dir.appendingPathComponent("pipe.txt").path)).type.identifier
                    == "public.named-pipe")
            #expect(
                (try typing.type(forPath: dir.appendingPathComponent("missing.png").path)).type.identifier
                    == "public.png")
        }
    }
}

/// Conformance chains thousands deep cost work and space in proportion to
/// their length, not its square.
@Suite struct DeepChainTests {
    private func chain(_ n: Int, closing: Bool = false) -> [TypeDeclaration] {
        (0..<n).map { i in
            let parent =
                i == 0 ? (closing ? "com.example.chain.t\(n - 1)" : "public.data") : "com.example.chain.t\(i - 1)"
            return TypeDeclaration(
                identifier: "com.example.chain.t\(i)", kind: .exported, conformsTo: [parent],
                tagSpecification: [TagSpecification(.filenameExtension, ["ch\(i)"])],
                origin: DeclarationOrigin(source: .user, file: "chain.plist", position: .line(i + 1)))
        }
    }

    /// The time limits of these chains only stop a hung run (ten times the
    /// slowest run measured on a busy machine, 55 s); what they prove is
    /// counted: the image's words grow with the chain, not with its square.
    @Test(.timeLimit(.minutes(10)))
    func aTwentyThousandTypeChainIsLinear() throws {
        var builder = RegistryBuilder.bundled()
        builder.add(chain(20_000))
        let registry = builder.build()
        // Words: a few per type and parent, not 200 million ancestor entries.
        #expect(registry.image.wordCount < 2_000_000)
        let last = try #require(registry.declaredType("com.example.chain.t19999"))
        let first = try #require(registry.declaredType("com.example.chain.t0"))
        #expect(last.conforms(to: first))
        #expect(last.conforms(to: registry.declaredType("public.data")!))
        #expect(!first.conforms(to: last))
        #expect(registry.type(filenameExtension: "ch19999") == last)
        let supertypes = last.orderedSupertypes.map(\.identifier)
        #expect(supertypes.count == 20_001)
        #expect(
            supertypes.first == "com.example.chain.t19998" && supertypes.suffix(2) == ["public.data", "public.item"])
        #expect(registry.descendants(of: first).count == 19_999)
        // Ordinary types keep their listed ancestors.
        #expect(registry.ancestorsUnlisted(registry.slot(forIdentifier: "public.jpeg")!) == false)
        #expect(registry.ancestorsUnlisted(registry.slot(forIdentifier: "com.example.chain.t19999")!))
    }

    @Test func aLongCycleIsReportedOnceAndStaysFinite() throws {
        var builder = RegistryBuilder.bundled()
        builder.add(chain(5_000, closing: true))
        let registry = builder.build()
        let cycles = registry.diagnostics.filter { $0.message.hasPrefix("conformance cycle") }
        #expect(cycles.count == 1)
        #expect(
            cycles.first?.message.hasPrefix("conformance cycle: com.example.chain.t0 -> com.example.chain.t4999 -> ")
                == true)
        let t = try #require(registry.declaredType("com.example.chain.t2500"))
        #expect(t.conforms(to: registry.declaredType("com.example.chain.t2501")!))
        #expect(!t.conforms(to: registry.declaredType("public.data")!))
        #expect(t.orderedSupertypes.count == 4_999)
    }

    @Test(.timeLimit(.minutes(10)))
    func aSubClassOfChainFromSystemDataIsLinear() throws {
        let records = (0..<20_000).map { i in
            SystemTypeRecord(
                mimeType: "image/x-uti-chain-\(i)", parents: i == 0 ? [] : ["image/x-uti-chain-\(i - 1)"],
                extensions: ["uc\(i)"], origin: DeclarationOrigin(source: .sharedMIMEInfo, file: "chain.xml"))
        }
        var builder = RegistryBuilder.bundled()
        builder.add(records)
        let registry = builder.build()
        #expect(registry.image.wordCount < 3_000_000)
        let last = try #require(registry.type(mimeType: "image/x-uti-chain-19999"))
        #expect(last.conforms(to: registry.declaredType("public.image")!))
        #expect(last.declaredParents == ["org.freedesktop.mime.image.x-uti-chain-19998"])
    }
}

/// A MIME type is a type and a subtype of RFC 9110 tokens; anything else is
/// no MIME type at every door of the library.
@Suite struct MIMESyntaxTests {
    let registry = TypeRegistry.bundled

    @Test(arguments: [
        "</>", "(/)", "text/html(", "x/@", "x/é", "x/\n", "x/", "/x", "x", "a/b/c", "text /html", "te\u{1}xt/html",
        "./a", "x/[y]", "x/y=z", "\"x\"/y", ";x/y", "", "{/}", "x/{", "}/x", "x/{y}",
    ])
    func notAMIMEType(text: String) {
        #expect(!TagClass.isMIMESyntax(text))
        #expect(TagClass.mimeSyntaxProblem(text) != nil)
        #expect(registry.type(mimeType: text) == nil)
        #expect(registry.type(tag: text, tagClass: .mimeType) == nil)
        #expect(registry.types(tag: text, tagClass: .mimeType).isEmpty)
    }

    @Test(arguments: [
        ("text/html", "public.html"), (" Text/HTML ; charset=utf-8", "public.html"),
        ("image/svg+xml", "public.svg-image"), ("application/vnd.ms-excel", "com.microsoft.excel.xls"),
        ("text/html;x=(\"@\")", "public.html"),
    ])
    func aMIMEType(text: String, identifier: String) {
        #expect(TagClass.isMIMESyntax(text))
        #expect(registry.type(mimeType: text)?.identifier == identifier)
    }

    /// The one-pass check and the one that says what is wrong agree on
    /// every string of up to five characters drawn from those that matter.
    @Test func theQuickCheckAgreesWithTheProblemOnEveryShortString() {
        let alphabet = ["a", "Z", "/", ";", " ", "\t", ".", "(", "=", "é", "\u{7f}", "+"]
        var texts = [""]
        var checked = 0
        for _ in 0..<5 {
            texts = texts.flatMap { text in alphabet.map { text + $0 } }
            for text in texts {
                #expect(
                    TagClass.isMIMESyntax(text) == (TagClass.mimeSyntaxProblem(text) == nil), "\(text.debugDescription)"
                )
                checked += 1
            }
        }
        #expect(checked > 200_000)
        for scalar in (0...255).compactMap(Unicode.Scalar.init) {
            for text in ["a/\(scalar)", "\(scalar)/a", "a\(scalar)b/c"] {
                #expect(
                    TagClass.isMIMESyntax(text) == (TagClass.mimeSyntaxProblem(text) == nil), "\(text.debugDescription)"
                )
            }
        }
    }

    /// Each ASCII byte is a token byte exactly when HTTP's `tchar` rule
    /// (RFC 9110, section 5.6.2) lists it.
    @Test func tokenBytesAreHTTPsTchars() {
        let tchars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8(0)...UInt8(127) {
            let text = "x/" + String(decoding: [byte], as: UTF8.self)
            #expect(TagClass.isMIMESyntax(text) == tchars.contains(byte), "\(text.debugDescription)")
            #expect((TagClass.mimeSyntaxProblem(text) == nil) == tchars.contains(byte), "\(text.debugDescription)")
        }
    }

    @Test func anUnknownWellFormedMIMETypeIsDynamic() {
        #expect(registry.type(mimeType: "application/x-uti-unknown!#$&^_.+-")?.isDynamic == true)
    }
}

/// Types keep a registry they were made from alive exactly as long as they
/// need it; the permanent registries need no keeping.
@Suite struct TypeLifetimeTests {
    /// A registry of its own, its `public.jpeg`, a dynamic type of it, and
    /// a weak reference to it.
    private func typesOfABuiltRegistry() -> (UniformType, UniformType, () -> TypeRegistry?) {
        let registry = RegistryBuilder.bundled().build()
        weak var weakRegistry = registry
        let jpeg = registry.declaredType("public.jpeg")!
        let dynamic = registry.type(filenameExtension: "uti-no-such-extension")!
        return (jpeg, dynamic, { weakRegistry })
    }

    @Test func typesKeepABuiltRegistryAliveAndLetItGoWhenGone() {
        var types: (UniformType, UniformType)?
        var registry: () -> TypeRegistry? = { nil }
        do {
            let (jpeg, dynamic, weak) = typesOfABuiltRegistry()
            types = (jpeg, dynamic)
            registry = weak
        }
        // Only the types hold the registry now; they still answer from it.
        #expect(registry() != nil)
        #expect(types?.0.identifier == "public.jpeg")
        #expect(types?.0.conforms(to: types!.0.registry.declaredType("public.image")!) == true)
        #expect(types?.1.isDynamic == true)
        #expect(types?.1.registry === registry())
        types = nil
        #expect(registry() == nil)
    }

    @Test func aDynamicTypeAloneKeepsItsRegistry() {
        var dynamic: UniformType?
        var registry: () -> TypeRegistry? = { nil }
        do {
            let (_, type, weak) = typesOfABuiltRegistry()
            dynamic = type
            registry = weak
        }
        #expect(registry() != nil)
        #expect(dynamic?.conforms(to: dynamic!.registry.declaredType("public.data")!) == true)
        dynamic = nil
        #expect(registry() == nil)
    }

    /// Types of a permanent registry, of a built one, and dynamic ones,
    /// through code generic over `Result` and `Optional` many times: a
    /// copy or destruction that got the type's layout wrong would release
    /// a registry once too often, and the loop would free it.
    @Test(arguments: [false, true])
    func typesSurviveGenericCode(built: Bool) throws {
        let registry = built ? RegistryBuilder.bundled().build() : TypeRegistry.bundled
        let types = [registry.declaredType("public.jpeg"), registry.type(filenameExtension: "uti-no-such-extension")]
        for _ in 0..<20_000 {
            for type in types {
                let result: Result<UniformType, any Error> = wrapped(type)
                let copies = [try result.get(), try unwrapped(result), try #require(type)]
                #expect(copies.allSatisfy { $0 == type })
            }
        }
        #expect(registry.declaredType("public.jpeg")?.identifier == "public.jpeg")
        #expect(TypeRegistry.bundled.type(filenameExtension: "png")?.identifier == "public.png")
    }

    @Test func typesOfTheBundledRegistryCompareWithThoseOfABuiltOne() {
        let built = RegistryBuilder.bundled().build()
        let ours = built.declaredType("public.jpeg")!, bundled = TypeRegistry.bundled.declaredType("public.jpeg")!
        #expect(ours == bundled)
        #expect(ours.hashValue == bundled.hashValue)
        #expect(ours.conforms(to: TypeRegistry.bundled.declaredType("public.image")!))
        #expect(bundled.conforms(to: built.declaredType("public.image")!))
        #expect(!bundled.conforms(to: built.declaredType("public.text")!))
    }
}

private struct NoType: Error {}

@inline(never) private func wrapped<T>(_ value: T?) -> Result<T, any Error> {
    value.map { .success($0) } ?? .failure(NoType())
}

@inline(never) private func unwrapped<T>(_ result: Result<T, any Error>) throws -> T { try result.get() }
