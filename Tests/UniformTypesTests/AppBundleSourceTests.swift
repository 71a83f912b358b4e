import Foundation
import TestSupport
import Testing

@testable import UniformTypes

/// App bundles as a source of the registry, found and read by this module:
/// where they are looked for, which one of an identifier is used, what
/// happens to one that cannot be read, and when a compiled registry of them
/// is stale.
@Suite struct AppBundleSourceTests {
    let folder = TemporaryFolder("uti-app-sources")
    var root: String { folder.path }
    /// No system data; bundles in the data folders and wherever `UTI_APPS` says.
    func environment(apps: [String] = []) -> [String: String] {
        var environment = [
            "HOME": root + "/home", "XDG_DATA_HOME": root + "/data-home", "XDG_DATA_DIRS": root + "/share",
            "UTI_MIME_TYPES": "", "UTI_CACHE_DIR": root + "/cache",
        ]
        if !apps.isEmpty { environment["UTI_APPS"] = apps.joined(separator: ":") }
        return environment
    }
    var userApps: String { root + "/data-home/uti/apps" }
    var systemApps: String { root + "/share/uti/apps" }

    /// Writes the bundle `name` in `folder` (its `Info.plist` under
    /// `Contents/` unless `flat`): identified as `identifier`, exporting
    /// `type` with the extension `ext`. Returns the bundle's path.
    @discardableResult
    func bundle(
        _ name: String, in folder: String, identifier: String, type: String, ext: String, flat: Bool = false
    ) throws -> String {
        let path = folder + "/" + name
        let plistFolder = flat ? path : path + "/Contents"
        try FileManager.default.createDirectory(atPath: plistFolder, withIntermediateDirectories: true)
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>\(identifier)</string>
            <key>UTExportedTypeDeclarations</key><array><dict>
                <key>UTTypeIdentifier</key><string>\(type)</string>
                <key>UTTypeConformsTo</key><array><string>public.data</string></array>
                <key>UTTypeTagSpecification</key><dict>
                    <key>public.filename-extension</key><array><string>\(ext)</string></array>
                </dict>
            </dict></array>
            </dict></plist>
            """
        try plist.write(toFile: plistFolder + "/Info.plist", atomically: true, encoding: .utf8)
        return path
    }

    func brokenBundle(_ name: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try "<plist><dict>".write(toFile: path + "/Info.plist", atomically: true, encoding: .utf8)
        return path
    }

    @Test func bundlesOfTheFoldersAndOfUTIAPPSJoinTheRegistry() throws {
        try bundle("One.app", in: userApps, identifier: "com.example.one", type: "com.example.one-doc", ext: "onex")
        // The same identifier found later (a less important folder): not used.
        try bundle("One.app", in: systemApps, identifier: "com.example.one", type: "com.example.masked", ext: "maskx")
        try bundle("Other.app", in: systemApps, identifier: "com.example.other", type: "com.example.other", ext: "othx")
        let named = try bundle(
            "Named.app", in: root + "/elsewhere", identifier: "com.example.named", type: "com.example.named-doc",
            ext: "namx", flat: true)
        let sources = RegistrySources(environment: environment(apps: [named]))
        #expect(sources.applications.explicitPaths == [named])
        #expect(sources.applications.folders == [userApps, systemApps])
        for cache in [nil, RegistryCache(directory: root + "/cache")] {
            let loaded = try TypeRegistry.load(sources, cache: cache)
            let registry = loaded.registry
            #expect(registry.type(filenameExtension: "onex")?.identifier == "com.example.one-doc")
            #expect(registry.type(filenameExtension: "othx")?.identifier == "com.example.other")
            #expect(registry.type(filenameExtension: "namx")?.identifier == "com.example.named-doc")
            #expect(registry.declaredType("com.example.masked") == nil)
            #expect(registry.declaredType("com.example.one-doc")?.origin?.source == .application)
            #expect(loaded.leftOut.isEmpty && loaded.skippedSources.isEmpty)
        }
    }

    /// Declaration files come after app bundles: a file overrides an app's
    /// declaration of the same type.
    @Test func declarationFilesOverrideAppBundles() throws {
        try bundle("App.app", in: userApps, identifier: "com.example.app", type: "com.example.shared", ext: "appx")
        let file = root + "/shared.plist"
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><array><dict>
        <key>UTTypeIdentifier</key><string>com.example.shared</string>
        <key>UTTypeConformsTo</key><array><string>public.data</string></array>
        <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><string>filex</string></dict>
        </dict></array></dict></plist>
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let registry = try TypeRegistry.load(
            RegistrySources(extraPaths: [file], environment: environment()), cache: nil
        )
        .registry
        let shared = try #require(registry.declaredType("com.example.shared"))
        #expect(shared.tags(.filenameExtension) == ["filex"])
        #expect(registry.type(filenameExtension: "appx")?.isDynamic == true)
    }

    @Test func aBundleFoundInAFolderThatCannotBeReadIsSkipped() throws {
        let broken = try brokenBundle("Broken.app", in: userApps)
        try bundle("Good.app", in: userApps, identifier: "com.example.good", type: "com.example.good", ext: "goodx")
        let cache = RegistryCache(directory: root + "/cache")
        for cache in [nil, cache] {
            let loaded = try TypeRegistry.load(RegistrySources(environment: environment()), cache: cache)
            #expect(loaded.skippedSources.map(\.file) == [broken + "/Info.plist"])
            #expect(loaded.skippedSources.allSatisfy { $0.message.hasSuffix("; the bundle is skipped") })
            #expect(loaded.leftOut.isEmpty)
            #expect(loaded.registry.type(filenameExtension: "goodx")?.identifier == "com.example.good")
            // Not saved, so that the skipped bundle is reported on every load.
            if cache != nil, case .notSaved = loaded.cacheOutcome {
            } else if cache != nil {
                Issue.record("a registry with a skipped bundle was saved: \(String(describing: loaded.cacheOutcome))")
            }
        }
    }

    @Test func aNamedPathThatCannotBeUsedFollowsThePolicy() throws {
        let broken = try brokenBundle("Broken.app", in: root + "/named")
        let missing = root + "/nowhere.app"
        let file = root + "/plain-file"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        try bundle("Good.app", in: userApps, identifier: "com.example.good", type: "com.example.good", ext: "goodx")
        let apps = [broken, missing, file]
        let expected = [broken + "/Info.plist", missing, file]
        let cache = RegistryCache(directory: root + "/cache")
        for cache in [nil, cache] {
            do throws(TypeRegistry.LoadError) {
                _ = try TypeRegistry.load(RegistrySources(environment: environment(apps: apps)), cache: cache)
                Issue.record("loaded despite unusable bundles the user named")
            } catch {
                #expect(error.diagnostics.map(\.file) == expected)
                #expect(error.diagnostics[1].message == "No such file or directory")
                #expect(error.diagnostics[2].message == "is neither an app bundle nor a folder of bundles")
            }
            let leaving = RegistrySources(namedSources: .leaveOut, environment: environment(apps: apps))
            let loaded = try TypeRegistry.load(leaving, cache: cache)
            #expect(loaded.leftOut.map(\.file) == expected)
            #expect(loaded.cacheOutcome == nil)
            #expect(loaded.registry.type(filenameExtension: "goodx")?.identifier == "com.example.good")
        }
        let images = (try? FileManager.default.contentsOfDirectory(atPath: root + "/cache")) ?? []
        #expect(images.filter { $0.hasSuffix(".img") }.isEmpty)
    }

    /// A named folder of bundles is searched like the data folders: a bundle
    /// in it that cannot be read is skipped, not a reason to stop.
    @Test func aNamedFolderOfBundlesSkipsWhatItCannotRead() throws {
        let named = root + "/named"
        let broken = try brokenBundle("Broken.app", in: named)
        try bundle("Good.app", in: named, identifier: "com.example.good", type: "com.example.good", ext: "goodx")
        let loaded = try TypeRegistry.load(RegistrySources(environment: environment(apps: [named])), cache: nil)
        #expect(loaded.skippedSources.map(\.file) == [broken + "/Info.plist"])
        #expect(loaded.registry.type(filenameExtension: "goodx")?.identifier == "com.example.good")
    }

    @Test func aNewOrChangedBundleMakesTheCompiledRegistryStale() throws {
        let cache = RegistryCache(directory: root + "/cache")
        try FileManager.default.createDirectory(atPath: userApps, withIntermediateDirectories: true)
        let sources = RegistrySources(environment: environment())
        #expect(try TypeRegistry.load(sources, cache: cache).cacheOutcome == .rebuilt)
        #expect(try TypeRegistry.load(sources, cache: cache).cacheOutcome == .reused)

        try bundle("New.app", in: userApps, identifier: "com.example.new", type: "com.example.new", ext: "newx")
        var loaded = try TypeRegistry.load(sources, cache: cache)
        #expect(loaded.cacheOutcome == .rebuilt)
        #expect(loaded.registry.type(filenameExtension: "newx")?.identifier == "com.example.new")
        #expect(try TypeRegistry.load(sources, cache: cache).cacheOutcome == .reused)

        // The same bundle, its Info.plist rewritten.
        try bundle("New.app", in: userApps, identifier: "com.example.new", type: "com.example.new", ext: "changedx")
        loaded = try TypeRegistry.load(sources, cache: cache)
        #expect(loaded.cacheOutcome == .rebuilt)
        #expect(loaded.registry.type(filenameExtension: "changedx")?.identifier == "com.example.new")
        #expect(loaded.registry.type(filenameExtension: "newx")?.isDynamic == true)
    }

    /// The process registry (`TypeRegistry.default`) reads the bundles the
    /// tool reads.
    @Test func theProcessRegistryReadsAppBundles() throws {
        try bundle("One.app", in: userApps, identifier: "com.example.one", type: "com.example.one-doc", ext: "onex")
        let (registry, problems) = ProcessRegistry.build(added: [], infoPlist: nil, environment: environment())
        #expect(problems.isEmpty)
        #expect(registry.type(filenameExtension: "onex")?.identifier == "com.example.one-doc")
        let (again, _) = ProcessRegistry.build(added: [], infoPlist: nil, environment: environment())
        #expect(again.type(filenameExtension: "onex")?.identifier == "com.example.one-doc")
    }

    /// The loader of 0.1.0 still loads: the declarations it is given, and no
    /// bundle of its own.
    @available(*, deprecated)
    @Test func theDeprecatedLoaderForwards() throws {
        try bundle("One.app", in: userApps, identifier: "com.example.one", type: "com.example.one-doc", ext: "onex")
        let reader = try AppBundleDeclarations(
            path: bundle(
                "Given.app", in: root + "/given", identifier: "com.example.given", type: "com.example.given",
                ext: "givx")
        )
        .declarations
        let registry = try RegistryLoader.load(
            includeSystem: false, applicationDeclarations: [try #require(reader)], environment: environment())
        #expect(registry.type(filenameExtension: "givx")?.identifier == "com.example.given")
        #expect(registry.declaredType("com.example.one-doc") == nil)
        #expect(throws: RegistryLoader.Failure.self) {
            try RegistryLoader.load(extraPaths: [root + "/missing.plist"], environment: environment())
        }
    }
}
