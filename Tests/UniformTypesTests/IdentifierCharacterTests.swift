import Foundation
import PropertyLists
import Testing

@testable import UniformTypes

/// Identifiers may hold what Apple allows: ASCII letters, digits, "-", "."
/// and characters above U+007F; control and format characters, which make
/// one identifier print as another, are refused.
@Suite struct IdentifierCharacterTests {
    @Test(arguments: ["com.example.café", "jp.example.日本語", "com.example.Straße-2", "public.jpeg", "a.b-c.0"])
    func allowed(identifier: String) {
        #expect(IdentifierSyntax.problem(with: identifier) == nil)
    }

    @Test(arguments: [
        ("com.example.has space", "only ASCII letters and digits"),
        ("com.example_under", "only ASCII letters and digits"),
        ("com.example.a/b", "only ASCII letters and digits"),
        (
            "com.example.\u{202E}gpj",
            "control, format, separator, private-use and unassigned characters are not allowed (U+202E)"
        ),
        (
            "com.example.zero\u{200B}width",
            "control, format, separator, private-use and unassigned characters are not allowed (U+200B)"
        ),
        (
            "com.example.c1\u{9B}",
            "control, format, separator, private-use and unassigned characters are not allowed (U+009B)"
        ),
        (
            "com.example.line\u{2028}break",
            "control, format, separator, private-use and unassigned characters are not allowed (U+2028)"
        ),
        (
            "com.example.no\u{A0}break",
            "control, format, separator, private-use and unassigned characters are not allowed (U+00A0)"
        ),
        (
            "com.example.private\u{E000}",
            "control, format, separator, private-use and unassigned characters are not allowed (U+E000)"
        ),
        (
            "com.example.unassigned\u{378}",
            "control, format, separator, private-use and unassigned characters are not allowed (U+0378)"
        ),
        ("com..example", "empty label between dots"),
    ])
    func refused(identifier: String, problem: String) throws {
        let found = try #require(IdentifierSyntax.problem(with: identifier))
        #expect(found.hasPrefix(problem), "\(found)")
    }

    @Test func aDeclaredNonASCIIIdentifierIsFoundInAnyCase() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><array><dict>
            <key>UTTypeIdentifier</key><string>com.example.café</string>
            <key>UTTypeConformsTo</key><array><string>public.data</string></array>
            <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key>
            <array><string>cafe</string></array></dict>
            </dict></array></dict></plist>
            """
        var builder = RegistryBuilder.bundled()
        builder.add(DeclarationReader(try PropertyList.parse(Array(xml.utf8)), file: "café.plist", source: .user))
        let registry = builder.build()
        #expect(registry.diagnostics.filter { $0.severity == .error }.isEmpty, "\(registry.diagnostics)")
        #expect(registry.type(filenameExtension: "cafe")?.identifier == "com.example.café")
        #expect(registry.declaredType("COM.EXAMPLE.CAFÉ")?.identifier == "com.example.café")
        #expect(registry.declaredType("com.example.cafe") == nil)
    }
}
