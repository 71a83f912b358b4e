import Foundation
import PropertyLists
import TestSupport
import Testing

@testable import UniformTypes

/// One description of a registry's sources, loaded with or without a cache,
/// with the policy for a named source that cannot be used.
@Suite struct RegistrySourcesTests {
    let folder = TemporaryFolder("uti-sources")
    var root: String { folder.path }
    var environment: [String: String] {
        [
            "HOME": root + "/home", "XDG_DATA_HOME": root + "/data-home", "XDG_DATA_DIRS": root + "/share",
            "UTI_MIME_TYPES": root + "/mime.types", "UTI_DECLARATIONS": root + "/types",
        ]
    }
    let declaration = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><array><dict>
        <key>UTTypeIdentifier</key><string>com.example.sources</string>
        <key>UTTypeConformsTo</key><array><string>public.data</string></array>
        <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><string>srcx</string></dict>
        </dict></array></dict></plist>
        """

    init() throws {
        try FileManager.default.createDirectory(atPath: root + "/types", withIntermediateDirectories: true)
        try "text/x-sources-test  srctest\n".write(toFile: root + "/mime.types", atomically: false, encoding: .utf8)
        try declaration.write(toFile: root + "/types/example.plist", atomically: false, encoding: .utf8)
    }

    @Test func withAndWithoutCacheGiveTheSameRegistry() throws {
        let sources = RegistrySources(environment: environment)
        let cache = RegistryCache(directory: root + "/cache")
        let built = try sources.load(cache: nil)
        let first = try sources.load(cache: cache)
        let second = try sources.load(cache: cache)
        #expect(built.cacheOutcome == nil)
        #expect(first.cacheOutcome == .rebuilt)
        #expect(second.cacheOutcome == .reused)
        for loaded in [built, first, second] {
            #expect(loaded.registry.type(filenameExtension: "srcx")?.identifier == "com.example.sources")
            #expect(loaded.registry.type(filenameExtension: "srctest")?.preferredMIMEType == "text/x-sources-test")
            #expect(loaded.problems.isEmpty)
        }
    }

    @Test func aMissingNamedSourceStopsOrIsLeftOutAsThePolicySays() throws {
        let missing = root + "/nowhere.plist"
        let cache = RegistryCache(directory: root + "/cache")
        let stopping = RegistrySources(extraPaths: [missing], environment: environment)
        for cache in [nil, cache] {
            #expect(throws: RegistryLoader.Failure.self) { try stopping.load(cache: cache) }
        }
        let leaving = RegistrySources(extraPaths: [missing], namedSources: .leaveOut, environment: environment)
        for cache in [nil, cache] {
            let loaded = try leaving.load(cache: cache)
            #expect(loaded.problems.map(\.file) == [missing])
            #expect(loaded.cacheOutcome == nil)
            #expect(loaded.registry.type(filenameExtension: "srcx")?.identifier == "com.example.sources")
        }
        let images = (try? FileManager.default.contentsOfDirectory(atPath: root + "/cache")) ?? []
        #expect(images.filter { $0.hasSuffix(".img") }.isEmpty)
    }

    @Test func anUnreadableProgramInfoPlistFollowsThePolicy() throws {
        let plist = root + "/Info.plist"
        try "<plist><dict>".write(toFile: plist, atomically: false, encoding: .utf8)
        let leaving = RegistrySources(programInfoPlist: plist, namedSources: .leaveOut, environment: environment)
        #expect(try leaving.load(cache: nil).problems.map(\.file) == [plist])
        let stopping = RegistrySources(programInfoPlist: plist, environment: environment)
        #expect(throws: RegistryLoader.Failure.self) { try stopping.load(cache: nil) }
    }

    @Test func declarationsAddedInCodeAreNeverCached() throws {
        let plist = try PropertyList.parse(Array(declaration.replacingOccurrences(of: "srcx", with: "incode").utf8))
        let reader = DeclarationReader(plist, file: "code", source: .application)
        let sources = RegistrySources(addedInCode: [reader], namedSources: .leaveOut, environment: environment)
        let loaded = try sources.load(cache: RegistryCache(directory: root + "/cache"))
        #expect(loaded.cacheOutcome == nil)
        #expect(loaded.registry.type(filenameExtension: "incode")?.identifier == "com.example.sources")
    }

    /// Each entry of the key says what kind of source it names, so a path
    /// cannot stand for another kind (a declaration folder named like a
    /// `mime.types` file, a program path that is also a declaration path).
    @Test func theCacheKeyNamesEachSourceByItsKind() {
        var a = RegistrySources(environment: environment)
        var b = a
        a.declarations = DeclarationSearchPath(optionalFolders: [], explicitPaths: ["/x"])
        b.declarations = DeclarationSearchPath(optionalFolders: ["/x"], explicitPaths: [])
        #expect(a.cacheKey != b.cacheKey)
        var c = RegistrySources(environment: environment)
        c.program = "/usr/bin/one"
        var d = c
        d.program = "/usr/bin/two"
        #expect(c.cacheKey != d.cacheKey)
        let cache = RegistryCache(directory: root)
        #expect(cache.path(roots: a.cacheKey) != cache.path(roots: b.cacheKey))
        #expect(a.cacheKey.allSatisfy { $0.contains("=") })
    }
}
