import Foundation
import TestSupport
import Testing

@testable import UniformTypes

/// The `uti` tool and the library read the same sources, app bundles
/// included, so they give the same answers: for every extension and MIME
/// type a registry of the bundled data, app bundles, declaration files and
/// a `mime.types` file knows, built in a folder of the test's own (nothing
/// installed on the machine is read).
@Suite struct ToolAndLibraryTests {
    let folder = TemporaryFolder("uti-tool-library")
    var root: String { folder.path }

    /// The tool's environment (`Run.environment`), with the sources of
    /// this test: no system MIME database, bundles in the user's and the
    /// system's data folders and in a folder `UTI_APPS` names, a declaration
    /// file in the user's `uti/types` and one `UTI_DECLARATIONS` names.
    var environment: [String: String] {
        Run.environment([
            "XDG_DATA_HOME": root + "/data-home", "XDG_DATA_DIRS": root + "/share",
            "UTI_APPS": root + "/named-apps", "UTI_DECLARATIONS": root + "/declarations.plist",
            "UTI_MIME_TYPES": root + "/mime.types", "UTI_CACHE_DIR": root + "/cache",
        ])
    }

    /// A property list of `declarations` (each a `UTTypeIdentifier` with
    /// parents and tags), exported or imported, with a bundle identifier
    /// when given.
    static func plist(bundle: String? = nil, exported: [String] = [], imported: [String] = []) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>\n"
        if let bundle { text += "<key>CFBundleIdentifier</key><string>\(bundle)</string>\n" }
        if !exported.isEmpty {
            text += "<key>UTExportedTypeDeclarations</key><array>\(exported.joined())</array>\n"
        }
        if !imported.isEmpty {
            text += "<key>UTImportedTypeDeclarations</key><array>\(imported.joined())</array>\n"
        }
        return text + "</dict></plist>\n"
    }

    static func type(
        _ identifier: String, conformsTo: [String] = ["public.data"], ext: [String], mime: [String] = []
    )
        -> String
    {
        func strings(_ values: [String]) -> String { values.map { "<string>\($0)</string>" }.joined() }
        return """
            <dict><key>UTTypeIdentifier</key><string>\(identifier)</string>
            <key>UTTypeConformsTo</key><array>\(strings(conformsTo))</array>
            <key>UTTypeTagSpecification</key><dict>
            <key>public.filename-extension</key><array>\(strings(ext))</array>
            <key>public.mime-type</key><array>\(strings(mime))</array>
            </dict></dict>
            """
    }

    func write(_ text: String, to path: String) throws {
        let folder = (root + "/" + path).split(separator: "/").dropLast().joined(separator: "/")
        try FileManager.default.createDirectory(atPath: "/" + folder, withIntermediateDirectories: true)
        try text.write(toFile: root + "/" + path, atomically: true, encoding: .utf8)
    }

    /// Sources whose claims overlap, so that precedence decides answers:
    /// app bundles claim `txt`, `text/plain` and a bundled type's identifier,
    /// declaration files override an app's type, `mime.types` adds tags to
    /// declared and new types, and one bundle is masked by another of the
    /// same identifier.
    func makeSources() throws {
        typealias T = ToolAndLibraryTests
        try write(
            T.plist(
                bundle: "com.example.one",
                exported: [
                    T.type("com.example.shared", ext: ["shx", "sharedx"], mime: ["application/x-shared"]),
                    T.type("com.example.one.doc", ext: ["one1"], mime: ["application/x-one"]),
                ],
                imported: [T.type("com.example.imported", ext: ["impx"])]),
            to: "data-home/uti/apps/One.app/Contents/Info.plist")
        try write(
            T.plist(
                bundle: "com.example.two",
                exported: [
                    T.type(
                        "com.example.two.text", conformsTo: ["public.plain-text"], ext: ["txt", "two2"],
                        mime: ["text/plain", "text/x-two"])
                ]),
            to: "share/uti/apps/Two.app/Contents/Info.plist")
        // Found after One.app, with its identifier: not used.
        try write(
            T.plist(bundle: "com.example.one", exported: [T.type("com.example.masked", ext: ["maskx"])]),
            to: "share/uti/apps/AOne.app/Contents/Info.plist")
        try write(
            T.plist(
                bundle: "com.example.three",
                exported: [T.type("com.example.imported", ext: ["impx", "imp2"], mime: ["application/x-imported"])]),
            to: "named-apps/Three.app/Contents/Info.plist")
        try write(
            T.plist(
                bundle: "com.example.four",
                imported: [T.type("public.jpeg", conformsTo: ["public.image"], ext: ["jpgx"], mime: ["image/x-jpgx"])]),
            to: "named-apps/Four.app/Info.plist")
        try write(
            T.plist(exported: [T.type("com.example.local", ext: ["loc", "shx"], mime: ["application/x-local"])]),
            to: "data-home/uti/types/local.plist")
        try write(
            T.plist(exported: [
                T.type("com.example.shared", ext: ["shx"], mime: ["application/x-shared-override"]),
                T.type("com.example.decl", conformsTo: ["com.example.one.doc"], ext: ["decl"]),
            ]),
            to: "declarations.plist")
        try write(
            """
            application/x-mt-only  mto mto2
            application/x-shared  shx
            text/plain  txt text
            image/x-new  nimg
            application/pdf  pdfx

            """, to: "mime.types")
    }

    /// Every extension and MIME type the registry's types carry, as
    /// written and in upper case, and a few no type claims.
    static func queries(_ registry: TypeRegistry) -> (extensions: [String], mimeTypes: [String]) {
        var extensions: [String] = [], mimeTypes: [String] = []
        var seen: Set<String> = []
        for type in registry.allTypes {
            for tag in type.tags(.filenameExtension) where seen.insert("e" + tag).inserted { extensions.append(tag) }
            for tag in type.tags(.mimeType) where seen.insert("m" + tag).inserted { mimeTypes.append(tag) }
        }
        extensions += extensions.map { $0.uppercased() } + ["unclaimedx", "a.b"]
        mimeTypes += mimeTypes.map { $0.uppercased() } + ["application/x-unclaimed", "text/x-unclaimed"]
        return (extensions, mimeTypes)
    }

    /// What the tool answered for each query: identifier, preferred MIME
    /// type, preferred extension.
    func toolAnswers(_ flag: String, _ queries: [String]) throws -> [[String?]] {
        let run = try Run(["lookup", "--json", flag] + queries, environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let objects = try #require(try run.json() as? [[String: Any]])
        try #require(objects.count == queries.count)
        return objects.map { object in
            guard let type = object["type"] as? [String: Any] else { return ["error: \(object["error"] ?? "?")"] }
            return [
                type["identifier"] as? String, type["preferredMIMEType"] as? String,
                type["preferredFilenameExtension"] as? String,
            ]
        }
    }

    @Test func everyTagGetsTheSameAnswerFromTheToolAndTheLibrary() throws {
        try makeSources()
        let loaded = try TypeRegistry.load(RegistrySources(environment: environment), cache: nil)
        #expect(loaded.leftOut.isEmpty && loaded.skippedSources.isEmpty)
        let registry = loaded.registry
        // The sources were read: each bundle's and file's type is there (the masked bundle's is not).
        for identifier in [
            "com.example.shared", "com.example.one.doc", "com.example.two.text", "com.example.imported",
            "com.example.local", "com.example.decl",
        ] {
            #expect(registry.declaredType(identifier) != nil, "\(identifier) is missing")
        }
        #expect(registry.declaredType("com.example.masked") == nil)
        #expect(registry.declaredType("com.example.shared")?.preferredMIMEType == "application/x-shared-override")

        let (extensions, mimeTypes) = Self.queries(registry)
        try #require(extensions.count > 1000 && mimeTypes.count > 500)
        func libraryAnswer(_ type: UniformType?) -> [String?] {
            guard let type else { return ["no type"] }
            return [type.identifier, type.preferredMIMEType, type.preferredFilenameExtension]
        }
        let expected = (
            extensions.map { libraryAnswer(registry.type(filenameExtension: $0)) },
            mimeTypes.map { libraryAnswer(registry.type(mimeType: $0)) }
        )
        // Twice: the first run builds the compiled registry and saves it, the second answers from it.
        for run in 1...2 {
            let byExtension = try toolAnswers("--as-extension", extensions)
            let byMIMEType = try toolAnswers("--as-mime", mimeTypes)
            var differences: [String] = []
            for (query, (tool, library)) in zip(extensions, zip(byExtension, expected.0)) where tool != library {
                differences.append("extension \(query): uti \(tool), library \(library)")
            }
            for (query, (tool, library)) in zip(mimeTypes, zip(byMIMEType, expected.1)) where tool != library {
                differences.append("MIME type \(query): uti \(tool), library \(library)")
            }
            #expect(differences.isEmpty, "run \(run): \(differences.count) differences: \(differences.prefix(20))")
            let images = try FileManager.default.contentsOfDirectory(atPath: root + "/cache").filter {
                $0.hasSuffix(".img")
            }
            #expect(images.count == 1, "run \(run): \(images)")
        }
        // The process registry (`TypeRegistry.default`) of these variables, for a program without an
        // Info.plist, answers alike too.
        let (process, problems) = ProcessRegistry.build(added: [], infoPlist: nil, environment: environment)
        #expect(problems.isEmpty)
        #expect(extensions.map { libraryAnswer(process.type(filenameExtension: $0)) } == expected.0)
        #expect(mimeTypes.map { libraryAnswer(process.type(mimeType: $0)) } == expected.1)
    }

    /// A bundle of a search folder that cannot be read is skipped by both,
    /// and one the user named stops the tool and is named by the library.
    @Test func unreadableBundlesAreTreatedAlike() throws {
        try makeSources()
        try write("<plist><dict>", to: "share/uti/apps/Broken.app/Info.plist")
        let loaded = try TypeRegistry.load(RegistrySources(environment: environment), cache: nil)
        let skipped = loaded.skippedSources.map(\.description)
        #expect(skipped.count == 1 && skipped[0].hasPrefix(root + "/share/uti/apps/Broken.app/Info.plist:"))
        let run = try Run(["lookup", "one1"], environment: environment)
        #expect(run.status == 0)
        #expect(run.stdout.contains("com.example.one.doc"))
        #expect(run.stderr == skipped.map { "uti: \($0)\n" }.joined())

        var named = environment
        named["UTI_APPS"] = root + "/share/uti/apps/Broken.app"
        let stopped = try Run(["lookup", "one1"], environment: named)
        #expect(stopped.status == 2)
        do throws(TypeRegistry.LoadError) {
            _ = try TypeRegistry.load(RegistrySources(environment: named), cache: nil)
            Issue.record("the library loaded a registry without a bundle the user named")
        } catch {
            #expect(stopped.stderr == error.diagnostics.map { "uti: \($0)\n" }.joined())
        }
        let leaving = try TypeRegistry.load(RegistrySources(namedSources: .leaveOut, environment: named), cache: nil)
        #expect(leaving.leftOut.map(\.file) == [root + "/share/uti/apps/Broken.app/Info.plist"])
    }
}
