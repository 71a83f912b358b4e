import Foundation
import SharedMIMEInfo
import Testing

@testable import UniformTypes

/// A registry over the SharedMIMEInfo fixture package (compiled) and a
/// mime.types fixture, with no other system data.
private func fixtureRegistry(mimeTypes: String = "") throws -> TypeRegistry {
    let root = URL(fileURLWithPath: Fixtures.path("mime")).deletingLastPathComponent().path
    var env = ["XDG_DATA_HOME": "/nonexistent-uti", "XDG_DATA_DIRS": root, "UTI_MIME_TYPES": mimeTypes]
    env["HOME"] = "/nonexistent-uti"
    return try TypeRegistry.load(RegistrySources(environment: env), cache: nil).registry
}

@Suite struct SystemSourceTests {
    @Test func claimedMIMETypesExtendAppleTypes() throws {
        let registry = try fixtureRegistry()
        let jpeg = try #require(registry.type(filenameExtension: "ujpeg"))
        #expect(jpeg.identifier == "public.jpeg")
        #expect(jpeg.preferredFilenameExtension == "jpeg")  // Apple's preferred tag stays first
        #expect(jpeg.tags(.mimeType).contains("image/x-uti-jpeg"))  // the alias joins
        #expect(jpeg.declaredParents == ["public.image"])  // Apple's conformance stays
        #expect(!registry.supplemented(jpeg).isEmpty)
    }

    @Test func unclaimedMIMETypesBecomeTypes() throws {
        let registry = try fixtureRegistry()
        let source = try #require(registry.type(mimeType: "text/x-uti-source"))
        #expect(source.identifier == "org.freedesktop.mime.text.x-uti-source")
        // x-uti-base is text/*, so already a public.plain-text.
        #expect(source.declaredParents == ["org.freedesktop.mime.text.x-uti-base"])
        #expect(source.conforms(to: registry.declaredType("public.text")!))
        #expect(source.tags(.mimeType) == ["text/x-uti-source", "text/x-uti-old"])
        #expect(Set(source.tags(.filenameExtension)) == ["us", "usrc", "usrc.gz"])  // *.US is case-sensitive: not "us"
        #expect(source.origin?.source == .sharedMIMEInfo)
        #expect(source.localizedDescription == "UTI source")
        let string = try #require(registry.type(mimeType: "application/x-uti-string"))
        #expect(string.localizedDescription(language: "de") == "Zeichenkettenmagie")
        #expect(string.declaredParents == ["public.archive", "public.data"])  // its generic icon is package-x-generic
        #expect(registry.type(mimeType: "x-content/x-uti-card", conformingTo: nil)?.declaredParents == ["public.data"])
    }

    @Test func identifierSchemeRoundTrips() {
        for mime in [
            "application/vnd.api+json", "application/vnd.emusic-emusic_package", "text/x-c++src",
            "Application/X-Foo.Bar",
        ] {
            let identifier = SystemTypeIdentifier.identifier(forMIMEType: mime)!
            #expect(IdentifierSyntax.problem(with: identifier) == nil, "\(identifier)")
            #expect(SystemTypeIdentifier.mimeType(forIdentifier: identifier) == mime.lowercased())
        }
        #expect(
            SystemTypeIdentifier.identifier(forMIMEType: "application/vnd.api+json")
                == "org.freedesktop.mime.application.vnd.api-plus-json")
        #expect(
            SystemTypeIdentifier.identifier(forMIMEType: "text/x-c++src")
                == "org.freedesktop.mime.text.x-c-plus--plus-src")
        #expect(SystemTypeIdentifier.identifier(forMIMEType: "nonsense") == nil)
    }

    @Test func systemIdentifiersRoundTripOverTheMachinesDatabase() throws {
        let db = MIMEDatabase.load(MIMESearchPath(directories: ["/usr/share/mime"]))
        #expect(db.types.count > 500, "shared-mime-info is not installed")
        var seen: [String: String] = [:]
        for type in db.types {
            let identifier = try #require(SystemTypeIdentifier.identifier(forMIMEType: type))
            #expect(SystemTypeIdentifier.mimeType(forIdentifier: identifier) == type.lowercased())
            #expect(seen.updateValue(type, forKey: identifier) == nil, "two MIME types give \(identifier)")
        }
    }

    @Test func mimeTypesFilesAddPairsAndReportBadLines() throws {
        let text =
            "# comment\napplication/x-uti-string ustr2 .USTR3\nimage/jpeg jpx\napplication/x-only-here onlyhere\nbroken line\ntext/x-uti-new unew\n"
        let (records, diagnostics) = MIMETypesFile.parse(Array(text.utf8), path: "/etc/mime.types")
        #expect(
            records.map(\.mimeType) == [
                "application/x-uti-string", "image/jpeg", "application/x-only-here", "text/x-uti-new",
            ])
        #expect(records[0].extensions == ["ustr2", "ustr3"])
        #expect(
            diagnostics.map(\.description) == [
                "/etc/mime.types:5: warning: \"broken\" is not a MIME type; line skipped"
            ])
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("mime.types").path
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            let registry = try fixtureRegistry(mimeTypes: path)
            #expect(
                registry.type(filenameExtension: "ustr2")?.identifier == "org.freedesktop.mime.application.x-uti-string"
            )
            // public.jpeg-2000 declares jpx: the line adds it to public.jpeg's tags only.
            #expect(registry.type(filenameExtension: "jpx")?.identifier == "public.jpeg-2000")
            #expect(registry.declaredType("public.jpeg")?.tags(.filenameExtension).contains("jpx") == true)
            #expect(
                registry.type(filenameExtension: "onlyhere")?.identifier
                    == "org.freedesktop.mime.application.x-only-here")
            #expect(
                registry.type(filenameExtension: "unew")?.conforms(to: registry.declaredType("public.plain-text")!)
                    == true)
            #expect(registry.diagnostics.contains { $0.file == path && $0.position == .line(5) })
        }
    }

    /// Fields, MIME types and tags are taken apart on Unicode scalars: a
    /// combining mark (U+0301) after a blank, `/`, `.` or `;` does not join
    /// with it and hide it.
    @Test func combiningMarksDoNotHideSeparators() throws {
        let (records, diagnostics) = MIMETypesFile.parse(Array("text/\u{301}x \u{301}a\tb\n".utf8), path: "marks.types")
        #expect(diagnostics.isEmpty)
        #expect(records.map(\.mimeType) == ["text/\u{301}x"])
        #expect(records.first?.extensions == ["\u{301}a", "b"])
        #expect(TagClass.filenameExtension.normalize(".\u{301}Y") == "\u{301}y")
        #expect(TagClass.mimeType.normalize("Text/X-\u{E9};\u{301}charset=x") == "text/x-\u{E9}")
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("mime.types").path
            try "text/x-marks \u{301}a\n".write(toFile: path, atomically: false, encoding: .utf8)
            let registry = try fixtureRegistry(mimeTypes: path)
            let type = try #require(registry.type(filenameExtension: "\u{301}a"))
            #expect(type.conforms(to: registry.declaredType("public.plain-text")!))
        }
    }
}

@Suite struct FileTypingWithSystemDataTests {
    @Test func pathsAreBytes() throws {
        let typing = FileTyping(registry: try fixtureRegistry())
        try withTemporaryDirectory { url in
            let path = Array((url.path + "/bad").utf8) + [0xFF] + Array("name.ustr".utf8)
            let fd = (path + [0]).withUnsafeBufferPointer {
                $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
            }
            try #require(fd >= 0)
            _ = write(fd, "xy", 2)
            close(fd)
            let result = try typing.type(forPath: path)
            #expect(result.exists && result.mimeType == "application/x-uti-string")
            #expect(try typing.type(ofExistingPath: path).exists)
            // The same name repaired to text names nothing.
            #expect(try typing.type(forPath: String(decoding: path, as: UTF8.self)).exists == false)
            #expect(throws: FileTyping.Failure.self) { try typing.type(ofExistingPath: path + [0x2F, 0]) }
        }
    }

    @Test func namesAndContent() throws {
        let typing = FileTyping(registry: try fixtureRegistry())
        try withTemporaryDirectory { url in
            let dir = url.path
            func write(_ name: String, _ bytes: [UInt8]) -> String {
                let path = dir + "/" + name
                FileManager.default.createFile(atPath: path, contents: Data(bytes))
                return path
            }
            let certain = try typing.type(forPath: write("a.ustr", [0, 1]))
            #expect(certain.mimeType == "application/x-uti-string" && certain.basis == .name && certain.certain)
            let picked = try typing.type(forPath: write("z.ucon", Array("CONA".utf8)))
            #expect(picked.mimeType == "application/x-uti-conflict-a" && picked.basis == .nameAndContent)
            let strong = try typing.type(forPath: write("y.ucon", Array("STRONG".utf8)))
            #expect(strong.mimeType == "application/x-uti-strong" && strong.basis == .content)
            let unread = try typing.type(forPath: write("w.ucon", Array("CONA".utf8)), options: .init(sniff: false))
            #expect(unread.mimeType == "application/x-uti-conflict-b" && !unread.certain)
            let text = try typing.type(forPath: write("notes", Array("hello\n".utf8)))
            #expect(text.type.identifier == "public.plain-text" && text.basis == .content)
            let binary = try typing.type(forPath: write("blob.qqq", [0, 1, 2]))
            #expect(binary.type.isDynamic && binary.mimeType == "application/octet-stream" && !binary.certain)
            // An empty file is typed by its name when the name decides...
            let empty = try typing.type(forPath: write("empty.ustr", []))
            #expect(empty.mimeType == "application/x-uti-string" && empty.basis == .name)
            #expect(try typing.type(forPath: write("empty.jpg", [])).type.identifier == "public.jpeg")
            // ...and is application/x-zerosize when it does not (unknown, or several globs).
            for name in ["empty", "empty.qqq", "empty.ucon"] {
                let unknown = try typing.type(forPath: write(name, []))
                #expect(unknown.mimeType == "application/x-zerosize" && unknown.basis == .fileSystem, "\(name)")
            }
            // An extension only a bundled type claims stands when the content agrees...
            let markdown = try typing.type(forPath: write("read.md", Array("# Title\n".utf8)))
            #expect(markdown.type.identifier == "net.daringfireball.markdown" && markdown.basis == .nameAndContent)
            // ...and gives way when the content is something else.
            let png = try typing.type(forPath: write("fake.md", Array("STRONG".utf8)))
            #expect(png.mimeType == "application/x-uti-strong")

            #expect(mkfifo(dir + "/pipe.ustr", 0o600) == 0)
            #expect(try typing.type(forPath: dir + "/pipe.ustr").type.identifier == "public.named-pipe")
            try FileManager.default.createSymbolicLink(atPath: dir + "/link.ustr", withDestinationPath: dir + "/a.ustr")
            #expect(try typing.type(forPath: dir + "/link.ustr").type.identifier == "public.symlink")
            #expect(
                try typing.type(forPath: dir + "/link.ustr", options: .init(followSymbolicLinks: true)).mimeType
                    == "application/x-uti-string")
            try FileManager.default.createDirectory(atPath: dir + "/Thing.app", withIntermediateDirectories: false)
            #expect(try typing.type(forPath: dir + "/Thing.app").type.identifier == "com.apple.application-bundle")
            #expect(try typing.type(forPath: dir + "/missing.ustr").mimeType == "application/x-uti-string")
            #expect(throws: FileTyping.Failure.self) {
                try FileTyping.readPrefix(Array((dir + "/link.ustr").utf8), count: 8, follow: false)
            }
        }
    }
}

/// The registry this machine's users get: shared-mime-info under
/// /usr/share and /etc/mime.types, with no user files.
private func machineRegistry() throws -> TypeRegistry {
    let environment = [
        "XDG_DATA_HOME": "/nonexistent-uti", "XDG_DATA_DIRS": "/usr/share", "HOME": "/nonexistent-uti",
    ]
    return try TypeRegistry.load(RegistrySources(environment: environment), cache: nil).registry
}

/// System data adds answers for tags nobody declares and never changes the
/// answer for a tag a declaration states.
@Suite struct DeclaredTagsOutrankSystemDataTests {
    @Test func everyBundledTagAnswersAlikeWithAndWithoutSystemData() throws {
        let merged = try machineRegistry()
        #expect(merged.mimeDatabase.map { !$0.isEmpty } == true, "shared-mime-info is not installed")
        let bundled = TypeRegistry.bundled
        var checked = 0
        var changed: [String] = []
        for type in bundled.allTypes {
            for spec in type.tagSpecification {
                for tag in spec.tags {
                    checked += 1
                    let without = bundled.type(tag: tag, tagClass: spec.tagClass, conformingTo: bundled.dataType)?
                        .identifier
                    let with = merged.type(tag: tag, tagClass: spec.tagClass, conformingTo: merged.dataType)?.identifier
                    let allWithout = bundled.types(tag: tag, tagClass: spec.tagClass).map(\.identifier)
                    let allWith = merged.types(tag: tag, tagClass: spec.tagClass).map(\.identifier)
                    if without != with || allWithout != allWith {
                        changed.append(
                            "\(spec.tagClass.identifier) \(tag): \(allWithout) without, \(allWith) with system data")
                    }
                }
            }
        }
        #expect(checked > 1500)
        #expect(changed == [])
    }

    @Test func supplementedTagsAreStillShown() throws {
        let merged = try machineRegistry()
        var systemNamesFirst = 0
        for type in TypeRegistry.bundled.allTypes {
            let mergedType = try #require(merged.declaredType(type.identifier))
            for spec in type.tagSpecification {
                // The declared tags first, in order, after the system's name
                // for the format where that is the preferred MIME type
                // (docs/semantics.md); system data only appends.
                var tags = mergedType.tags(spec.tagClass), declared = spec.tags
                if spec.tagClass == .mimeType, let first = tags.first, first != declared.first {
                    systemNamesFirst += 1
                    tags.removeFirst()
                    declared.removeAll { TagClass.mimeType.normalize($0) == TagClass.mimeType.normalize(first) }
                }
                #expect(Array(tags.prefix(declared.count)) == declared, "\(type.identifier)")
            }
            // What Apple's API lists: the declaration's tags, in its order.
            #expect(merged.declaredTags(of: mergedType) == type.tagSpecification, "\(type.identifier)")
        }
        #expect(systemNamesFirst > 30)
        let jpeg = try #require(merged.declaredType("public.jpeg"))
        #expect(
            merged.tags(of: jpeg, tagClass: .filenameExtension, includingDescendants: false).count
                > TypeRegistry.bundled.declaredType("public.jpeg")!.tags(.filenameExtension).count)
    }

    /// Without depending on the machine: mime.types lines that give declared
    /// tags to other types.
    @Test func mimeTypesCannotReRankDeclaredTags() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("mime.types").path
            try
                "audio/x-m4a m4a\naudio/mpeg m4a mp3\nimage/heif heic\napplication/octet-stream bin\napplication/x-installer dist\n"
                .write(toFile: path, atomically: false, encoding: .utf8)
            let registry = try fixtureRegistry(mimeTypes: path)
            #expect(registry.type(filenameExtension: "m4a")?.identifier == "com.apple.m4a-audio")
            #expect(
                registry.types(tag: "m4a", tagClass: .filenameExtension).map(\.identifier) == ["com.apple.m4a-audio"])
            #expect(registry.type(filenameExtension: "heic")?.identifier == "public.heic")
            #expect(registry.type(filenameExtension: "bin")?.identifier == "com.apple.macbinary-archive")
            // A declared tag whose type is not data stays dynamic, as without system data.
            #expect(registry.type(filenameExtension: "dist")?.isDynamic == true)
            // The tags are still there for `uti tags`.
            #expect(registry.declaredType("public.mp3")?.tags(.filenameExtension).contains("m4a") == true)
            #expect(registry.declaredType("public.data")?.tags(.filenameExtension).contains("bin") == true)
            // The clash is a note where the system's tag came from.
            #expect(
                registry.diagnostics.contains {
                    $0.severity == .note && $0.message.contains("\"m4a\" that system data gives public.mp3")
                })
        }
    }
}

/// Types made from system data sit inside Apple's tree.
@Suite struct SystemTypePlacementTests {
    private func registry(_ records: [SystemTypeRecord]) -> TypeRegistry {
        var builder = RegistryBuilder.bundled()
        builder.add(records)
        return builder.build()
    }

    private func record(_ mime: String, parents: [String] = [], icon: String? = nil) -> SystemTypeRecord {
        SystemTypeRecord(
            mimeType: mime, parents: parents, genericIcon: icon,
            origin: DeclarationOrigin(source: .sharedMIMEInfo, file: "test.xml"))
    }

    @Test(arguments: [
        ("image/x-uti-raw", "public.image"), ("audio/x-uti-opus", "public.audio"), ("video/x-uti-mkv", "public.movie"),
        ("font/x-uti-font", "public.font"), ("text/x-uti-text", "public.plain-text"),
    ])
    func mediaTypesGoUnderTheirAbstractType(mime: String, root: String) throws {
        let registry = registry([record(mime)])
        let type = try #require(registry.type(mimeType: mime))
        #expect(type.identifier.hasPrefix("org.freedesktop.mime."))
        #expect(type.declaredParents == [root])
        #expect(registry.descendants(of: registry.declaredType(root)!).contains(type))
    }

    @Test func genericIconsPlaceWhereReliable() throws {
        let registry = registry([
            record("application/x-uti-archive", icon: "package-x-generic"),
            record("application/x-uti-sheet", icon: "x-office-spreadsheet"),
            record("application/x-uti-rom", icon: "application-x-executable"),
            record("application/x-uti-json-ish", icon: "text-x-script"),
            record("application/x-uti-font", icon: "font-x-generic"),
        ])
        func parents(_ mime: String) -> [String]? { registry.type(mimeType: mime)?.declaredParents }
        // Apple's archive, spreadsheet and executable are not data; a file format is.
        #expect(parents("application/x-uti-archive") == ["public.archive", "public.data"])
        #expect(parents("application/x-uti-sheet") == ["public.spreadsheet", "public.data"])
        #expect(parents("application/x-uti-rom") == ["public.executable", "public.data"])
        #expect(parents("application/x-uti-json-ish") == ["public.data"])  // not a reliable sign
        #expect(parents("application/x-uti-font") == ["public.font"])
    }

    @Test func aParentThatLeadsThereIsEnough() throws {
        // Declared in an order where the subclass comes first.
        let registry = registry([
            record("image/x-uti-child", parents: ["image/x-uti-parent"]),
            record("image/x-uti-parent"),
            record("image/x-uti-jpeg-like", parents: ["image/jpeg"]),
            record("video/x-uti-both", parents: ["audio/x-uti-sound"], icon: "video-x-generic"),
            record("audio/x-uti-sound"),
        ])
        #expect(
            registry.type(mimeType: "image/x-uti-child")?.declaredParents == ["org.freedesktop.mime.image.x-uti-parent"]
        )
        #expect(registry.type(mimeType: "image/x-uti-jpeg-like")?.declaredParents == ["public.jpeg"])
        #expect(
            registry.type(mimeType: "video/x-uti-both")?.declaredParents == [
                "org.freedesktop.mime.audio.x-uti-sound", "public.movie",
            ])
    }

    @Test func cyclesInSubClassOfStayFinite() throws {
        let registry = registry([
            record("image/x-uti-a", parents: ["image/x-uti-b"]),
            record("image/x-uti-b", parents: ["image/x-uti-a"]),
        ])
        let a = try #require(registry.type(mimeType: "image/x-uti-a"))
        #expect(a.conforms(to: registry.declaredType("public.image")!))
        #expect(registry.diagnostics.contains { $0.message.contains("conformance cycle") })
    }

    /// Every image/, audio/, video/ and font/ type of this machine that system
    /// data makes conforms to Apple's abstract type for it.
    @Test func theMachinesMediaTypesAreAllInsideAppleTree() throws {
        let registry = try machineRegistry()
        let db = try #require(registry.mimeDatabase)
        let roots = ["image": "public.image", "audio": "public.audio", "video": "public.movie", "font": "public.font"]
        var made = 0
        for mime in db.types {
            guard let root = roots[String(mime.split(separator: "/")[0])] else { continue }
            let type = try #require(registry.type(mimeType: mime))
            guard type.identifier.hasPrefix("org.freedesktop.mime.") else { continue }
            made += 1
            #expect(type.conforms(to: registry.declaredType(root)!), "\(mime)")
        }
        #expect(made > 100)
    }
}

/// A name several globs match, with no content to decide: the registry's
/// own answer for the extension is preferred, as `uti ts` gives it.
@Suite struct AmbiguousNameTests {
    @Test func theRegistrysExtensionAnswerIsPreferred() throws {
        let typing = FileTyping(registry: try machineRegistry())
        let ts = typing.type(forName: "clip.ts")
        #expect(Set(ts.nameCandidates) == ["text/vnd.trolltech.linguist", "video/mp2t"], "the machine's globs changed")
        #expect(ts.type.identifier == "public.mpeg-2-transport-stream" && ts.mimeType == "video/mp2t" && !ts.certain)
        #expect(ts.type == typing.registry.type(filenameExtension: "ts"))
        try withTemporaryDirectory { dir in
            // Content that decides still wins: an XML message catalog.
            let path = dir.appendingPathComponent("app_de.ts").path
            try "<?xml version=\"1.0\"?>\n<!DOCTYPE TS>\n<TS version=\"2.1\">\n</TS>\n".write(
                toFile: path, atomically: false, encoding: .utf8)
            let catalog = try typing.type(forPath: path)
            #expect(catalog.mimeType == "text/vnd.trolltech.linguist" && catalog.certain)
            // Text that no glob's type is a kind of keeps GIO's first choice.
            let declarations = dir.appendingPathComponent("index.d.ts").path
            try "/// <reference types=\"node\" />\nimport { A } from 'a';\n".write(
                toFile: declarations, atomically: false, encoding: .utf8)
            #expect(try typing.type(forPath: declarations).mimeType == "text/vnd.trolltech.linguist")
            // Content that says nothing leaves the name's preference, uncertain.
            let binary = dir.appendingPathComponent("clip.ts").path
            FileManager.default.createFile(
                atPath: binary, contents: Data([0x47, 0, 0x11, 0x10] + [UInt8](repeating: 0xff, count: 200)))
            let stream = try typing.type(forPath: binary)
            #expect(stream.mimeType == "video/mp2t" && !stream.certain)
        }
    }

    /// video/mp2t lists *.m2t before *.ts: it still joins the type whose
    /// preferred extension is ts, so `uti video/mp2t` is Apple's type.
    @Test func aSystemTypeJoinsTheDeclaredTypeOfItsExtension() throws {
        let registry = try machineRegistry()
        #expect(registry.type(mimeType: "video/mp2t")?.identifier == "public.mpeg-2-transport-stream")
        #expect(registry.type(mimeType: "application/x-compressed-tar")?.identifier == "org.gnu.gnu-zip-tar-archive")
        // text/x-objcsrc and text/x-matlab both list *.m: neither takes Apple's type.
        #expect(registry.type(mimeType: "text/x-matlab")?.identifier == "org.freedesktop.mime.text.x-matlab")
        #expect(registry.type(filenameExtension: "m")?.identifier == "public.objective-c-source")
    }

    @Test func tagsOnlySystemDataGivesAreTold() throws {
        let registry = try fixtureRegistry()
        #expect(registry.declaresTag("jpg", tagClass: .filenameExtension))
        #expect(registry.declaresTag("ujpeg", tagClass: .filenameExtension) == false)  // a glob of the fixture only
        #expect(registry.type(filenameExtension: "ujpeg")?.identifier == "public.jpeg")
        #expect(registry.declaresTag("nothing-claims-this", tagClass: .filenameExtension) == false)
    }
}
