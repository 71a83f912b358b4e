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
        let built = try TypeRegistry.load(sources, cache: nil)
        let first = try TypeRegistry.load(sources, cache: cache)
        let second = try TypeRegistry.load(sources, cache: cache)
        #expect(built.cacheOutcome == nil)
        #expect(first.cacheOutcome == .rebuilt)
        #expect(second.cacheOutcome == .reused)
        for loaded in [built, first, second] {
            #expect(loaded.registry.type(filenameExtension: "srcx")?.identifier == "com.example.sources")
            #expect(loaded.registry.type(filenameExtension: "srctest")?.preferredMIMEType == "text/x-sources-test")
            #expect(loaded.leftOut.isEmpty)
        }
    }

    @Test func aMissingNamedSourceStopsOrIsLeftOutAsThePolicySays() throws {
        let missing = root + "/nowhere.plist"
        let cache = RegistryCache(directory: root + "/cache")
        let stopping = RegistrySources(extraPaths: [missing], environment: environment)
        for cache in [nil, cache] {
            #expect(throws: TypeRegistry.LoadError.self) { try TypeRegistry.load(stopping, cache: cache) }
        }
        let leaving = RegistrySources(extraPaths: [missing], namedSources: .leaveOut, environment: environment)
        for cache in [nil, cache] {
            let loaded = try TypeRegistry.load(leaving, cache: cache)
            #expect(loaded.leftOut.map(\.file) == [missing])
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
        #expect(try TypeRegistry.load(leaving, cache: nil).leftOut.map(\.file) == [plist])
        let stopping = RegistrySources(programInfoPlist: plist, environment: environment)
        #expect(throws: TypeRegistry.LoadError.self) { try TypeRegistry.load(stopping, cache: nil) }
    }

    @Test func declarationsAddedInCodeAreNeverCached() throws {
        let plist = try PropertyList.parse(Array(declaration.replacingOccurrences(of: "srcx", with: "incode").utf8))
        let reader = DeclarationReader(plist, file: "code", source: .application)
        let sources = RegistrySources(addedInCode: [reader], namedSources: .leaveOut, environment: environment)
        let loaded = try TypeRegistry.load(sources, cache: RegistryCache(directory: root + "/cache"))
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

    /// The file name is a hash of the key: an image saved for one key and
    /// found under another's name (a hash collision, or a planted copy) is
    /// rebuilt, never answered from.
    @Test func anImageBuiltForAnotherKeyIsNeverReused() throws {
        let cache = RegistryCache(directory: root + "/cache")
        let first = RegistrySources(environment: environment)
        var other = environment
        try declaration.replacingOccurrences(of: "com.example.sources", with: "com.example.other")
            .write(toFile: root + "/other.plist", atomically: false, encoding: .utf8)
        other["UTI_DECLARATIONS"] = root + "/other.plist"
        let second = RegistrySources(environment: other)
        #expect(try TypeRegistry.load(first, cache: cache).cacheOutcome == .rebuilt)
        let firstFile = cache.path(roots: first.cacheKey), secondFile = cache.path(roots: second.cacheKey)
        #expect(firstFile != secondFile)
        try FileManager.default.copyItem(atPath: firstFile, toPath: secondFile)
        let loaded = try TypeRegistry.load(second, cache: cache)
        #expect(loaded.cacheOutcome != .reused)
        #expect(loaded.registry.type(filenameExtension: "srcx")?.identifier == "com.example.other")
    }

    /// A variable naming declarations in bytes that are not UTF-8 would
    /// name another file once decoded: it is left out and said to be.
    @Test func aVariableThatIsNotUTF8IsLeftOutAndNamed() async {
        await #expect(processExitsWith: .success) {
            let folder = "/tmp/uti-undecodable-\(getpid())"
            mkdir(folder, 0o700)
            defer { _ = try? FileManager.default.removeItem(atPath: folder) }
            // The file the lossy decoding of the variable would name.
            FileManager.default.createFile(atPath: folder + "/\u{FFFD}.plist", contents: Data("<plist".utf8))
            let value = Array((folder + "/").utf8) + [0xFF] + Array(".plist".utf8) + [0]
            value.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { _ = setenv("UTI_DECLARATIONS", $0.baseAddress!, 1) }
            }
            let loaded = try TypeRegistry.load(RegistrySources(namedSources: .leaveOut), cache: nil)
            guard loaded.leftOut.map(\.file) == ["UTI_DECLARATIONS"] else { exit(1) }
            guard (try? TypeRegistry.load(RegistrySources(), cache: nil)) == nil else { exit(2) }
        }
    }
}
