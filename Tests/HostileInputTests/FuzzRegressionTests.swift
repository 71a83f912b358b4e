import CompiledData
import Foundation
import PropertyLists
import Testing

@testable import SharedMIMEInfo
@testable import UniformTypes

/// Inputs the fuzz drivers in Fuzz/ found problems with, kept so that the
/// fixes stay: each is read again and must give an error or a sound answer.
@Suite(.timeLimit(.minutes(1))) struct FuzzRegressionTests {
    private func corpusFile(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Corpus/regressions/" + name, withExtension: nil))
        return [UInt8](try Data(contentsOf: url))
    }

    /// A reference of eight bytes above `Int.max` trapped on conversion.
    @Test func binaryPlistReferencePastIntIsRefused() throws {
        let bytes = try corpusFile("binary-plist-reference-past-int.bplist")
        #expect(throws: PropertyListError.self) { try PropertyList.parse(bytes) }
        do {
            _ = try PropertyList.parse(bytes)
        } catch {
            #expect(error.message.contains("past the object count"), "\(error)")
        }
    }

    /// A combining mark after `=` joined it into one character, so the
    /// extension came back cut.
    @Test func dynamicIdentifierTagWithCombiningMarkRoundTrips() throws {
        let tag = String(decoding: try corpusFile("dynamic-identifier-combining-mark.txt"), as: UTF8.self)
        #expect(tag.unicodeScalars.first == "\u{0358}")
        let made = DynamicIdentifier.make(tag: tag, tagClass: .filenameExtension, conformingTo: "public.data")
        let contents = try #require(DynamicIdentifier.decode(made), "\(made) does not decode")
        #expect(contents.tags == [TagSpecification(.filenameExtension, [tag])])
        #expect(contents.conformsTo == ["public.data"])
    }

    /// A compiled registry holding declarations and a MIME layer.
    private func registryImage() throws -> [UInt8] {
        let declarations = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><array><dict>
              <key>UTTypeIdentifier</key><string>com.example.recipe</string>
              <key>UTTypeConformsTo</key><array><string>public.data</string></array>
              <key>UTTypeTagSpecification</key><dict>
                <key>public.filename-extension</key><array><string>recipe</string></array>
                <key>public.mime-type</key><array><string>application/x-recipe</string></array>
              </dict>
            </dict></array></dict></plist>
            """
        let package = """
            <?xml version="1.0" encoding="UTF-8"?>
            <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
              <mime-type type="image/x-sample"><sub-class-of type="image/png"/>
                <glob pattern="*.sample"/><glob pattern="Sample*" case-sensitive="true"/>
                <magic priority="60"><match type="string" offset="0" value="SAMPLE"/></magic>
              </mime-type>
              <mime-type type="image/png"><glob pattern="*.png"/></mime-type>
            </mime-info>
            """
        var builder = RegistryBuilder()
        builder.add(
            DeclarationReader(try PropertyList.parse(Array(declarations.utf8)), file: "sample.plist", source: .user))
        var layer = MIMELayer(directory: "/sample/mime", format: .packages)
        var diagnostics: [Diagnostic] = []
        MIMEPackageReader.read(
            bytes: Array(package.utf8), path: "/sample/mime/packages/sample.xml", into: &layer,
            diagnostics: &diagnostics)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        builder.add(MIMEDatabase(layers: [layer], diagnostics: diagnostics))
        return builder.compile()
    }

    /// Huge counts in a registry image (the type and tag-class counts, a
    /// MIME layer's pattern and name counts, a hash table's mask) made
    /// lookups walk for minutes. Every word of an image is set in turn to
    /// such a value, with the checksum made to match so that the damage
    /// reaches the readers: every lookup must still end, quickly.
    @Test func everyDamagedWordOfARegistryImageGivesBoundedLookups() throws {
        let image = try registryImage()
        let intact = TypeRegistry(image: try ImageView(image, kind: RegistryImage.kind))
        #expect(intact.type(filenameExtension: "recipe")?.identifier == "com.example.recipe")
        #expect(intact.mimeDatabase?.guess(name: "x.sample", data: nil).mimeType == "image/x-sample")

        let words = (image.count - ImageView.headerSize) / 4
        for word in 0..<words {
            for value: UInt32 in [0xFFFF_FFFF, 0x4000_0000, 0x0010_0000] {
                var bytes = image
                let at = ImageView.headerSize + word * 4
                for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
                guard let view = try? ImageView(withMatchingChecksum(bytes), kind: RegistryImage.kind) else { continue }
                lookEverywhere(TypeRegistry(image: view))
            }
        }
    }

    /// Fuzzed images that kept one lookup busy for minutes: lists of a
    /// billion entries (tags, tag classes, strings), many tag lists that all
    /// name one long run of strings, and the same across every descendant of
    /// a type (with glob patterns that all name one long run). Every answer
    /// stops at its work budget: what the answers hold is counted, and is
    /// at most one budget for each answer asked for; the registry says its
    /// answers were cut.
    @Test(arguments: [
        "registry-image-huge-lists.image", "registry-image-shared-tag-lists.image",
        "registry-image-shared-runs-across-types.image",
    ])
    func damagedRegistryImageAnswersWithinItsBudget(file: String) throws {
        let bytes = withMatchingChecksum(try corpusFile(file))
        let view = try ImageView(bytes, kind: RegistryImage.kind)
        let registry = TypeRegistry(image: view)
        let budget = WorkBudget.bytes(forImageOf: view.byteCount)
        // One answer: a type's tags cost at least 8 bytes each.
        for type in registry.allTypes.prefix(64) {
            let tags = type.tagSpecification.reduce(0) { $0 + $1.tags.count }
            #expect(tags <= budget / 8, "\(type.identifier): \(tags) tags")
        }
        let (answers, received) = lookEverywhere(registry)
        #expect(received <= answers * budget, "\(received) bytes in \(answers) answers of \(budget) bytes each")
        #expect(registry.answersWereCut)
    }

    /// `bytes` with the checksum in the image header made to match the body.
    private func withMatchingChecksum(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let sum = bytes.withUnsafeBytes {
            ImageHash.checksum(UnsafeRawBufferPointer(rebasing: $0[ImageView.headerSize...]))
        }
        for i in 0..<8 { bytes[ImageHeader.checksum + i] = UInt8(truncatingIfNeeded: sum >> (8 * UInt64(i))) }
        return bytes
    }

    /// Asks `registry` everything a command could, and returns how many
    /// answers that took and how many bytes of strings they held.
    @discardableResult
    private func lookEverywhere(_ registry: TypeRegistry) -> (answers: Int, bytes: Int) {
        var answers = 0, bytes = 0
        func count(_ strings: [String]) { bytes += strings.reduce(0) { $0 + $1.utf8.count } }
        func count(_ specs: [TagSpecification]) {
            for spec in specs { count([spec.tagClass.identifier] + spec.tags) }
        }
        for type in registry.allTypes.prefix(16) {
            count(type.tagSpecification)
            let supertypes = type.orderedSupertypes
            count(supertypes.map(\.identifier))
            let descendants = registry.descendants(of: type)
            count(descendants.map(\.identifier))
            answers += 3 + supertypes.count + descendants.count
            for descendant in descendants {
                _ = descendant.isDynamic
                count(descendant.tagSpecification)
                answers += 1
            }
            count(registry.tags(of: type, tagClass: .filenameExtension, includingDescendants: true))
            count(registry.tagSpecification(of: type, includingDescendants: true))
            count(registry.declaredParents(of: descendants).flatMap { $0 })
            answers += 3
        }
        for name in ["recipe", "sample", "png", "x"] {
            _ = registry.type(filenameExtension: name)
            _ = registry.type(mimeType: "image/" + name)
            _ = registry.types(tag: name, tagClass: .filenameExtension).map { ($0.identifier, $0.isDynamic) }
        }
        if let database = registry.mimeDatabase {
            for name in ["x.sample", "Sample.txt", "a.png", "README"] { _ = database.guess(name: name, data: nil) }
            // Names the compiled name table answers, and names it sends the long way.
            let typing = FileTyping(registry: registry)
            for name in ["x.sample", "X.SAMPLE", "Sample.sample", "a.png", "a.b.png", "x.recipe", ".png", "README"] {
                _ = typing.preferredType(forName: name).identifier
            }
            _ = database.guess(name: nil, data: UnsafeRawBufferPointer(start: nil, count: 0))
            for type in database.types.prefix(8) { _ = database.parents(of: type) }
        }
        return (answers, bytes)
    }
}
