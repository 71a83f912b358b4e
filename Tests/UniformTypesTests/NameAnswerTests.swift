import Foundation
import Testing

@testable import SharedMIMEInfo
@testable import UniformTypes

/// `FileTyping.preferredType(forName:)` answers most names from the name
/// table compiled into the registry (`NameAnswers`); every answer must be
/// the one the full guess (`type(forName:)`) gives.
@Suite struct NameAnswerTests {
    /// First parts that globs of the machine's database can touch (literal
    /// names, patterns such as `README*`, `makefile.*`, `[0-9][0-9][0-9].vdr`),
    /// and plain ones in both cases.
    static let firstParts = [
        "x", "X", "photo", "Photo", "README", "readme", "ReadMe", "makefile", "Makefile", "GNUmakefile",
        "sconscript", "SConscript", "SConstruct", "123", "1234", "core", "pom", "meson", "meson_options",
        "CMakeLists", "settings", "winmail", "gmon", "project", "a b", "ünï", "lib", "libfoo", "x~", "x,v",
    ]

    /// The machine's registry: bundled types, shared-mime-info and mime.types.
    static func systemRegistry() throws -> TypeRegistry {
        let environment = ["XDG_DATA_DIRS": "/usr/share", "HOME": "/nonexistent"]
        return try TypeRegistry.load(RegistrySources(environment: environment), cache: nil).registry
    }

    /// Every tail a suffix glob of the machine's database names, as given
    /// and in upper case, after every first part above; and the whole
    /// literal names.
    @Test func everyGlobTailAgreesWithTheFullGuess() throws {
        let registry = try Self.systemRegistry()
        let database = try #require(registry.mimeDatabase, "shared-mime-info is not installed")
        var tails: Set<String> = [], literals: [String] = []
        database.nameIndex.forEachGlob { glob in
            switch glob {
            case .suffix(let key, _):
                let text = String(decoding: key, as: UTF8.self)
                if text.hasPrefix(".") { tails.insert(text) }
            case .literal(let key, _):
                literals.append(String(decoding: key, as: UTF8.self))
            case .pattern:
                break
            }
        }
        try #require(tails.count > 500)
        let typing = FileTyping(registry: registry)
        var answered = 0, checked = 0
        func check(_ name: String) {
            checked += 1
            var bytes = Array(name.utf8)
            if bytes.withUnsafeMutableBufferPointer({ registry.nameAnswerSlot(UnsafeBufferPointer($0)) }) != nil {
                answered += 1
            }
            let fast = typing.preferredType(forName: name), full = typing.type(forName: name).type
            #expect(fast == full, "\(name): table \(fast.identifier), full guess \(full.identifier)")
        }
        for tail in tails.sorted() {
            for first in Self.firstParts {
                check(first + tail)
                check(first + tail.uppercased())
            }
            check(tail)
            check("a" + tail + tail)
        }
        for literal in literals { check(literal) }
        // The table answers most names (a third of the first parts above are
        // chosen to touch a literal or a pattern); the rest take the long way.
        #expect(answered * 10 > checked * 7, "the table answered \(answered) of \(checked) names")
    }

    /// A database written to reach every rule of the table: a
    /// case-sensitive suffix beside a case-insensitive one, a literal
    /// name ending with a tail, a suffix longer than a tail that ends with
    /// it, patterns that touch the first part, and two layers.
    @Test func everyRuleOfTheTableHoldsOnADatabaseBuiltToTestIt() throws {
        let user = """
            <?xml version="1.0" encoding="UTF-8"?>
            <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
              <mime-type type="text/x-upper"><glob pattern="*.C" case-sensitive="true"/></mime-type>
              <mime-type type="text/x-lower"><glob pattern="*.c"/></mime-type>
              <mime-type type="application/x-special"><glob pattern="special.dat"/></mime-type>
              <mime-type type="application/x-dat"><glob pattern="*.dat"/><glob pattern="*.lst"/></mime-type>
              <mime-type type="application/x-config"><glob pattern="*-config.cfg"/></mime-type>
              <mime-type type="application/x-cfg"><glob pattern="*.cfg"/></mime-type>
              <mime-type type="text/x-notes"><glob pattern="Notes*" case-sensitive="true"/><glob pattern="*.txt"/></mime-type>
              <mime-type type="text/x-readme"><glob pattern="readme*"/></mime-type>
              <mime-type type="application/x-lib"><glob pattern="*.so.[0-9]*"/><glob pattern="*.so"/></mime-type>
              <mime-type type="application/x-twin-a"><glob pattern="*.twin"/></mime-type>
              <mime-type type="application/x-twin-b"><glob pattern="*.twin"/></mime-type>
              <mime-type type="application/x-tar-gz"><glob pattern="*.tar.gz" weight="60"/></mime-type>
              <mime-type type="application/x-gz"><glob pattern="*.gz"/></mime-type>
            </mime-info>
            """
        let system = """
            <?xml version="1.0" encoding="UTF-8"?>
            <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
              <mime-type type="application/x-lst-system"><glob pattern="*.lst"/></mime-type>
              <mime-type type="image/x-pic"><glob pattern="*.pic"/><glob pattern="[0-9][0-9][0-9].pic"/></mime-type>
              <mime-type type="image/x-numbered"><glob pattern="[0-9][0-9][0-9].pic"/></mime-type>
            </mime-info>
            """
        func layer(_ text: String, _ directory: String) -> MIMELayer {
            var layer = MIMELayer(directory: directory, format: .packages)
            var diagnostics: [Diagnostic] = []
            MIMEPackageReader.read(
                bytes: Array(text.utf8), path: directory + "/packages/test.xml", into: &layer,
                diagnostics: &diagnostics)
            return layer
        }
        var builder = RegistryBuilder.bundled()
        builder.add(MIMEDatabase(layers: [layer(user, "/user/mime"), layer(system, "/system/mime")], diagnostics: []))
        let registry = builder.build()
        let typing = FileTyping(registry: registry)
        func fromTable(_ name: String) -> Bool {
            var bytes = Array(name.utf8)
            return bytes.withUnsafeMutableBufferPointer { registry.nameAnswerSlot(UnsafeBufferPointer($0)) } != nil
        }
        let firsts = [
            "x", "X", "special", "SPECIAL", "a-config", "Notes", "notes", "README", "readme", "libx", "123", "12",
            "a b",
        ]
        let tails = [
            ".c", ".C", ".dat", ".DAT", ".lst", ".cfg", ".txt", ".so", ".so.1", ".so.1.2", ".twin", ".tar.gz",
            ".TAR.GZ",
            ".gz", ".pic", ".unknown", ".",
        ]
        for first in firsts {
            for tail in tails {
                let name = first + tail
                let fast = typing.preferredType(forName: name), full = typing.type(forName: name).type
                #expect(fast == full, "\(name): table \(fast.identifier), full guess \(full.identifier)")
            }
        }
        // Each rule, seen from the table: answered where it may, the long way where it must.
        #expect(fromTable("x.c") && fromTable("x.dat") && fromTable("x.tar.gz") && fromTable("x.TAR.GZ"))
        #expect(fromTable("x.gz"), "*.tar.gz cannot match a name whose first dot starts .gz")
        #expect(!fromTable("x.C"), "a case-sensitive glob decides, so the tail's case matters")
        #expect(!fromTable("special.dat") && fromTable("other.dat"), "the literal name is checked")
        #expect(!fromTable("x.cfg") && !fromTable("a-config.cfg"), "a longer suffix ends with the tail")
        #expect(!fromTable("Notes.txt") && fromTable("notes.txt"), "the case-sensitive pattern is tried")
        #expect(!fromTable("readme.txt") && !fromTable("README.txt"), "the pattern is tried on the lower-cased name")
        #expect(!fromTable("123.pic") && fromTable("12.pic"), "the pattern is tried when one suffix matches")
        #expect(!fromTable(".c") && !fromTable("x") && !fromTable("a/b.c"), "no first part, no tail, a path")
        #expect(typing.preferredType(forName: "x.c").identifier == typing.type(forName: "x.c").type.identifier)
    }

    /// The tail test never says no for a pattern that can match: every
    /// first part of up to three bytes from a telling alphabet, before
    /// each tail in two cases, against each pattern.
    @Test func theTailTestNeverMissesAMatch() {
        let patterns = [
            "*.so.[0-9]*", "sconscript.*", "readme*", "[0-9][0-9][0-9].vdr", "*.anim[1-9j]", "*.[1-9]", "*~", "*,v",
            "*%", "makefile.*", "*.[!a]b", "?.x", "a?.x", "*[.]x", "\\*.x", "*.X", "[a-c]*.[d-f]", "[!.]*.y", "*",
            "x",
        ]
        let tails = [".so.1", ".vdr", ".anim1", ".animj", ".1", ".x", ".X", ".y", ".ab", ".bb", ".e", ".", ".so"]
        let alphabet: [UInt8] = Array("a1r*-_xAR~".utf8)
        var firsts: [[UInt8]] = alphabet.map { [$0] }
        for a in alphabet { for b in alphabet { firsts.append([a, b]) } }
        for a in Array("sr1".utf8) { for b in alphabet { for c in Array("a1".utf8) { firsts.append([a, b, c]) } } }
        firsts += [Array("readme".utf8), Array("sconscript".utf8), Array("makefile".utf8), Array("123".utf8)]
        for pattern in patterns {
            let bytes = Array(pattern.utf8)
            let test = bytes.withUnsafeBufferPointer { GlobTailTest(pattern: $0) }
            for tail in tails {
                let tailBytes = Array(tail.utf8)
                let said = tailBytes.withUnsafeBufferPointer { test.mayMatch(tail: $0) }
                for first in firsts {
                    for variant in [tailBytes, Array(tail.uppercased().utf8)] {
                        let name = first + variant
                        let matches = bytes.withUnsafeBufferPointer { p in
                            name.withUnsafeBufferPointer { GlobMatcher.matches(p, $0) }
                        }
                        if matches {
                            #expect(said, "\(pattern) matches \(String(decoding: name, as: UTF8.self))")
                        }
                    }
                }
            }
        }
        // And says no where nothing can match.
        func says(_ pattern: String, _ tail: String) -> Bool {
            Array(pattern.utf8).withUnsafeBufferPointer { p in
                Array(tail.utf8).withUnsafeBufferPointer { GlobTailTest(pattern: p).mayMatch(tail: $0) }
            }
        }
        #expect(!says("*.so.[0-9]*", ".jpg") && !says("[0-9][0-9][0-9].vdr", ".jpg") && !says("*.[1-9]", ".jpg"))
        #expect(says("readme*", ".jpg") && says("sconscript.*", ".jpg") && says("*.so.[0-9]*", ".so.1"))
    }
}
