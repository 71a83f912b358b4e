import DocumentHandlers
import Foundation
import PropertyLists
import Testing

@testable import SharedMIMEInfo
@testable import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

/// Every file in Corpus/ (made by tools/make-hostile-corpus.py), read by the
/// reader it targets: each gives the asserted error or result, in bounded
/// time, and opens no file and no connection on the document's behalf.
@Suite(.timeLimit(.minutes(1))) struct HostileInputTests {
    let outside: OutsideAccessGuard

    init() throws { outside = try OutsideAccessGuard() }

    @Test func theGuardNoticesAnOpenedCanaryAndAConnection() throws {
        _ = outside.outsideAccess()
        let fd = open(outside.canary, O_RDONLY)
        close(fd)
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = outside.port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(connected == 0)
        let access = outside.outsideAccess()
        close(client)
        #expect(access.opened && access.connected)
        #expect(outside.outsideAccess() == (false, false))
    }

    // MARK: Property lists

    private func plistError(_ name: String) throws -> PropertyListError? {
        let result = try outside.check(name) { bytes in
            Result { () throws(PropertyListError) in try PropertyList.parse(bytes) }
        }
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test(arguments: [
        (
            "xml-plist/external-entity.plist",
            "line 3: the document declares an entity; entity declarations are not accepted"
        ),
        (
            "xml-plist/external-parameter-entity.plist",
            "line 3: the document declares an entity; entity declarations are not accepted"
        ),
        (
            "xml-plist/billion-laughs.plist",
            "line 3: the document declares an entity; entity declarations are not accepted"
        ),
        (
            "xml-plist/quadratic-blowup.plist",
            "line 3: the document declares an entity; entity declarations are not accepted"
        ),
        ("xml-plist/xinclude.plist", "line 3: unknown element <include>"),
        ("xml-plist/deep-nesting.plist", "line 3: elements nested more than 256 deep"),
        ("xml-plist/huge-integer.plist", "line 3: \"184467440737095516160\" is not a 64-bit integer"),
        ("xml-plist/negative-overflow.plist", "line 3: \"-9223372036854775809\" is not a 64-bit integer"),
        ("xml-plist/bad-date.plist", "line 3: \"NaN\" is not a date of the form YYYY-MM-DDTHH:MM:SSZ"),
        (
            "xml-plist/invalid-utf8.plist",
            "line 3: Input is not proper UTF-8, indicate encoding ! Bytes: 0xC3 0x28 0x20 0xFF"
        ),
        (
            "xml-plist/invalid-utf16.plist",
            "line 2: bytes not valid in the document's encoding (input conversion failed due to input error, bytes 0x00 0xD8 0x41 0x00)"
        ),
        ("xml-plist/truncated.plist", "line 3: Premature end of data in tag key line 3"),
        ("binary-plist/object-count-huge.bplist", "offset 15: object count 4611686018427387904 is out of range"),
        ("binary-plist/offset-table-past-end.bplist", "offset 15: offset table lies outside the file"),
        ("binary-plist/object-offset-past-end.bplist", "offset 14: object 0 has offset 250 outside the object area"),
        ("binary-plist/offset-into-trailer.bplist", "offset 14: object 0 has offset 16 outside the object area"),
        ("binary-plist/ref-size-zero.bplist", "offset 18: invalid offset or reference size in trailer"),
        ("binary-plist/offset-size-nine.bplist", "offset 23: invalid offset or reference size in trailer"),
        ("binary-plist/truncated-trailer.bplist", "offset 10: invalid offset or reference size in trailer"),
        ("binary-plist/top-object-out-of-range.bplist", "offset 15: top object 7 is past the object count 1"),
        ("binary-plist/string-past-end.bplist", "offset 10: count runs past the object area"),
        ("binary-plist/length-past-64-bits.bplist", "offset 8: invalid extended count"),
        ("binary-plist/array-count-huge.bplist", "offset 8: count 1152921504606846975 exceeds the file size"),
        ("binary-plist/self-containing-array.bplist", "offset 8: container object 0 is referenced more than once"),
        ("binary-plist/dictionary-cycle.bplist", "offset 8: container object 0 is referenced more than once"),
        ("binary-plist/invalid-utf16.bplist", "offset 8: string is not valid UTF-16"),
        ("binary-plist/ascii-string-high-bytes.bplist", "offset 8: ASCII string holds a byte above 0x7F"),
        ("binary-plist/integer-past-64-bits.bplist", "offset 8: integer does not fit in 64 bits"),
        ("binary-plist/nan-date.bplist", "offset 8: date is not a finite number"),
        ("binary-plist/unknown-marker.bplist", "offset 8: unsupported object marker 0x70"),
        ("binary-plist/deep-nesting.bplist", "offset 264: nesting deeper than 128"),
    ])
    func propertyListIsRefused(file: String, expected: String) throws {
        let error = try #require(try plistError(file), "\(file) was accepted")
        #expect(error.description == expected, "\(file)")
    }

    /// Infinity is a real number a binary property list can hold (NaN
    /// dates are not): it is read, not refused.
    @Test func infiniteRealIsRead() throws {
        let value = try outside.check("binary-plist/infinite-real.bplist") { try PropertyList.parse($0) }
        #expect(value.value == .real(.infinity))
    }

    /// A DOCTYPE naming an external DTD, on disk or on the network, is
    /// accepted as Apple's own property lists carry one, and never loaded.
    @Test(arguments: ["xml-plist/external-dtd-file.plist", "xml-plist/external-dtd-network.plist"])
    func externalDTDIsNeverLoaded(file: String) throws {
        let value = try outside.check(file) { try PropertyList.parse($0) }
        #expect(value.value == .string("kept"))
    }

    // MARK: shared-mime-info

    private func readPackage(_ name: String) throws -> (MIMELayer, [String]) {
        try outside.check(name) { bytes in
            var layer = MIMELayer(directory: "/hostile/mime", format: .packages)
            var diagnostics: [Diagnostic] = []
            MIMEPackageReader.read(bytes: bytes, path: "/hostile/" + name, into: &layer, diagnostics: &diagnostics)
            return (layer, diagnostics.map(\.description))
        }
    }

    @Test(arguments: [
        (
            "mime-package/external-entity.xml",
            "/hostile/mime-package/external-entity.xml:3: error: the document declares an entity; entity declarations are not accepted"
        ),
        (
            "mime-package/billion-laughs.xml",
            "/hostile/mime-package/billion-laughs.xml:3: error: the document declares an entity; entity declarations are not accepted"
        ),
        (
            "mime-package/quadratic-blowup.xml",
            "/hostile/mime-package/quadratic-blowup.xml:3: error: the document declares an entity; entity declarations are not accepted"
        ),
        (
            "mime-package/deep-magic.xml",
            "/hostile/mime-package/deep-magic.xml:3: error: elements nested more than 256 deep"
        ),
        (
            "mime-package/invalid-utf8.xml",
            "/hostile/mime-package/invalid-utf8.xml:3: error: Input is not proper UTF-8, indicate encoding !"
        ),
        (
            "mime-package/truncated.xml",
            "/hostile/mime-package/truncated.xml:3: error: Premature end of data in tag mime-type line 3"
        ),
    ])
    func unreadableMIMEPackageIsRefused(file: String, expected: String) throws {
        let (layer, diagnostics) = try readPackage(file)
        #expect(diagnostics.first.map { $0.hasPrefix(expected) } == true, "\(diagnostics)")
        #expect(layer.types.isEmpty)
    }

    @Test func outOfRangeNumbersInAMIMEPackageAreReportedAndSkipped() throws {
        let (layer, diagnostics) = try readPackage("mime-package/huge-numbers.xml")
        let prefix = "/hostile/mime-package/huge-numbers.xml:"
        #expect(
            diagnostics == [
                prefix + "4: error: magic of application/x-huge: priority must be 0–100",
                prefix + "5: error: magic of application/x-huge: priority must be 0–100",
                prefix + "6: error: glob *.huge of application/x-huge: weight must be 0–100",
                prefix + "7: error: glob *.huger of application/x-huge: weight must be 0–100",
            ])
        #expect(layer.globs.map(\.pattern) == ["*.ok"])
        #expect(layer.magic.isEmpty)
    }

    @Test func outOfRangeMagicOffsetsAndValuesAreReportedAndSkipped() throws {
        let (layer, diagnostics) = try readPackage("mime-package/huge-offsets.xml")
        let prefix = "/hostile/mime-package/huge-offsets.xml:"
        #expect(
            diagnostics == [
                prefix
                    + "4: error: magic of application/x-far: offset \"0:99999999999999999999\" is not N or START:END; the rule is skipped",
                prefix
                    + "5: error: magic of application/x-far: offset \"-1\" is not N or START:END; the rule is skipped",
                prefix
                    + "6: error: magic of application/x-far: offset \"4294967296\" is not N or START:END; the rule is skipped",
            ])
        #expect(layer.globs.map(\.pattern) == ["*.far"])
        #expect(layer.magic.isEmpty)
    }

    /// XInclude and an external DTD are not processed: the package is read
    /// as written, and nothing is fetched.
    @Test(arguments: [
        ("mime-package/external-dtd-network.xml", "text/x-kept"), ("mime-package/xinclude.xml", "text/x-inc"),
    ])
    func mimePackageReferencesAreNotFollowed(file: String, type: String) throws {
        let (layer, diagnostics) = try readPackage(file)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(layer.types == [type])
    }

    /// A glob of 200 stars is matched without backtracking blow-up.
    @Test func backtrackingGlobMatchesInBoundedTime() throws {
        let (layer, diagnostics) = try readPackage("mime-package/backtracking-glob.xml")
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let database = MIMEDatabase(layers: [layer], diagnostics: [])
        let name = String(repeating: "a", count: 4000)
        #expect(database.guess(name: name, data: nil).nameMatches.isEmpty)
        #expect(database.guess(name: name + "b", data: nil).nameMatches == ["application/x-stars"])
    }

    /// Sub-class cycles are read, and every question about them ends.
    @Test func subclassCycleIsReportedAndTerminates() throws {
        let (layer, diagnostics) = try readPackage("mime-package/subclass-cycle.xml")
        #expect(
            diagnostics == [
                "/hostile/mime-package/subclass-cycle.xml:5: warning: application/x-self is declared a sub-class of itself"
            ])
        let database = MIMEDatabase(layers: [layer], diagnostics: [])
        #expect(!database.isSubclass("application/x-one", of: "text/plain"))
        #expect(database.isSubclass("application/x-one", of: "application/x-two"))
        #expect(database.isSubclass("application/x-two", of: "application/x-one"))
    }

    @Test(arguments: [
        ("mime-cache/wrong-version.cache", 0, "unsupported mime.cache version 2.0 (1.1 and 1.2 are read)"),
        ("mime-cache/truncated-header.cache", 36, "offset past the end of the file (30 bytes)"),
        ("mime-cache/offset-past-end.cache", 4294967040, "offset past the end of the file (84 bytes)"),
        ("mime-cache/alias-count-huge.cache", 44, "table of 2147483647 entries does not fit in the file"),
        ("mime-cache/string-past-end.cache", 96, "string runs past the end of the file"),
        ("mime-cache/cyclic-suffix-tree.cache", 60, "nodes are shared or cyclic"),
        ("mime-cache/cyclic-matchlet.cache", 92, "nodes are shared or cyclic"),
        ("mime-cache/shared-long-string.cache", 160044, "string is longer than 4096 bytes"),
    ])
    func mimeCacheIsRefused(file: String, offset: Int, reason: String) throws {
        let result = try outside.check(file) { bytes in
            var layer = MIMELayer(directory: "/hostile/mime", format: .cache)
            return Result { () throws(MIMECacheReader.Failure) in
                try MIMECacheReader.parse(bytes: bytes, path: "/hostile/mime/mime.cache", into: &layer)
            }
        }
        guard case .failure(let error) = result else {
            Issue.record("\(file) was accepted")
            return
        }
        #expect(error.reason == reason, "\(file)")
        #expect(error.offset == offset, "\(file)")
    }

    // MARK: mime.types, desktop entries, mimeapps.list

    @Test func mimeTypesProblemsNameTheirLines() throws {
        let (records, diagnostics) = try outside.check("mime-types/hostile.types") {
            MIMETypesFile.parse($0, path: "hostile.types")
        }
        #expect(records.map(\.mimeType) == ["text/plain", "application/x-ok", "application/x-long"])
        #expect(
            diagnostics.map(\.description) == [
                "hostile.types:3: warning: \"not-a-type\" is not a MIME type; line skipped",
                "hostile.types:4: warning: line is not valid UTF-8; skipped",
                "hostile.types:5: warning: \"a/b\" is not a filename extension; skipped",
                "hostile.types:6: warning: \"\\0\\0\\0\" is not a MIME type; line skipped",
            ])
    }

    @Test(arguments: [
        (
            "desktop-entry/broken-field-codes.desktop",
            "desktop-entry/broken-field-codes.desktop:4: error: Exec: unknown field code \"%z\" at column 8"
        ),
        (
            "desktop-entry/unterminated-quote.desktop",
            "desktop-entry/unterminated-quote.desktop:4: error: Exec: the double quote at column 11 is never closed"
        ),
        (
            "desktop-entry/field-code-in-quotes.desktop",
            "desktop-entry/field-code-in-quotes.desktop:4: error: Exec: a field code inside a quoted argument at column 10; the spec leaves its expansion undefined"
        ),
        (
            "desktop-entry/two-file-lists.desktop",
            "desktop-entry/two-file-lists.desktop:4: error: Exec: more than one of %f, %F, %u, %U"
        ),
    ])
    func brokenExecLineIsRefused(file: String, expected: String) throws {
        let entry = try outside.check(file) { DesktopEntry(KeyFile(bytes: $0, path: file), id: "hostile.desktop") }
        #expect(entry.exec == nil)
        #expect(entry.diagnostics.map(\.description) == [expected])
    }

    @Test func badEscapesAreReportedWithTheirLines() throws {
        let file = "desktop-entry/bad-escape.desktop"
        let entry = try outside.check(file) { DesktopEntry(KeyFile(bytes: $0, path: file), id: "hostile.desktop") }
        #expect(entry.exec?.arguments == [[.text("viewer")], [.field("f")]])
        #expect(
            entry.diagnostics.map(\.description) == [
                "desktop-entry/bad-escape.desktop:3: error: Name: unknown escape \"\\q\" (column 4)",
                "desktop-entry/bad-escape.desktop:5: error: MimeType: a \"\\\" ends the value (column 11)",
            ])
        #expect(entry.mimeTypes.isEmpty)
    }

    @Test func garbageLinesAreReportedAndSkipped() throws {
        let file = "desktop-entry/garbage-lines.desktop"
        let entry = try outside.check(file) { DesktopEntry(KeyFile(bytes: $0, path: file), id: "hostile.desktop") }
        let skipped = "the line is skipped"
        #expect(
            entry.diagnostics.map(\.description) == [
                "\(file):1: error: group header without a closing \"]\"; \(skipped)",
                "\(file):2: error: expected \"Key=Value\", a [Group] or a # comment; \(skipped)",
                "\(file):4: error: invalid key \"\" (keys are letters, digits, -, /, ., +, _ and *); \(skipped)",
                "\(file):5: error: invalid key \"Key[\" (keys are letters, digits, -, /, ., +, _ and *); \(skipped)",
                "\(file):7: error: control character U+0000 at column 15; \(skipped)",
            ])
        // The Exec line with a NUL in it is dropped, not passed on.
        #expect(entry.exec == nil)
    }

    @Test func desktopEntryThatIsNotUTF8IsIgnored() throws {
        let file = "desktop-entry/not-utf8.desktop"
        let entry = try outside.check(file) { DesktopEntry(KeyFile(bytes: $0, path: file), id: "hostile.desktop") }
        #expect(entry.diagnostics.first?.description == "\(file):3: error: not UTF-8 (byte 41); the file is ignored")
        #expect(entry.exec == nil)
    }

    @Test func badEscapesInMimeappsListAreReported() throws {
        let bytes = try outside.document("desktop-entry/mimeapps.list")
        let config = outside.folder + "/config"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: config + "/mimeapps.list"))
        let catalog = try outside.check("desktop-entry/mimeapps.list") { _ in
            HandlerCatalog(searchPath: ApplicationSearchPath(configHome: config))
        }
        let path = config + "/mimeapps.list"
        #expect(
            catalog.diagnostics.map(\.description) == [
                "\(path):2: error: text/plain: unknown escape \"\\q\" (column 16)",
                "\(path):4: error: image/png: a \"\\\" ends the value (column 20)",
            ])
        #expect(catalog.claims.isEmpty)
    }

    // MARK: Declarations

    @Test func conformanceCyclesAreReportedAndTerminate() throws {
        let registry = try outside.check("declarations/conformance-cycle.plist") { bytes in
            var builder = RegistryBuilder()
            builder.add(DeclarationReader(try PropertyList.parse(bytes), file: "cycle.plist", source: .user))
            return builder.build()
        }
        #expect(
            registry.diagnostics.map(\.description) == [
                "cycle.plist:5: error: conformance cycle: com.example.a -> com.example.b -> com.example.a",
                "cycle.plist:9: error: conformance cycle: com.example.self -> com.example.self",
            ])
        let a = try #require(registry.type(identifier: "com.example.a"))
        #expect(!a.conforms(to: .text))
    }
}
