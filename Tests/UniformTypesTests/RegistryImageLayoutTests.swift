import CompiledData
import Testing

@testable import UniformTypes

/// The compiled image's layout (docs/compiled-image.md) and its version:
/// the layout of every version is written here, so a change to an offset,
/// an entry's size or the order of the sources without a new version fails,
/// and an image of another version is refused rather than misread.
@Suite struct RegistryImageLayoutTests {
    /// Every layout version and its layout, as `RegistryImage.layoutDescription`
    /// gives it. An entry is never edited: a new layout is a new version.
    static let layouts: [UInt32: String] = [
        1: """
        header: magic 0, format 8, kind 12, root 16, words 20, pool 24, layout 28, checksum 32, size 40
        bucket: hash 0, key 1, length 2, value 3, size 4
        root: count 0, types 1, identifiers 2, tagClassCount 3, tagClasses 4, diagnostics 5, diagnosticCount 6, mimeFlags 7, mimeIndex 8, mimeLayers 9, mimeNameSlots 11, extra 12, dataSlot 14, size 15
        record: identifier 0, kind 2, position 3, file 4, description 6, referenceURL 8, version 10, iconName 12, conformsTo 14, tags 15, parents 16, ancestors 17, children 18, flags 19, shadowed 20, supplements 21, size 22
        kind bits: declaration mask 255, source << 8, position kind << 16
        flags: conformsToData 1, ancestorsUnlisted 2; system-only tag bit 2147483648; ancestor list limit 256
        tag class entry: name 0, table 2, size 3
        tag list entry: class 0, tags 2, size 3
        origin entry: source and kind 0, position 1, file 2, size 4
        diagnostic entry: severity 0, position kind 1, position 2, file 3, message 5, size 7
        sources: bundled, user, application, sharedMIMEInfo, mimeTypes
        MIME name index: root: layerCount 0, nameCount 1, namesStart 2, layers 3; layer: literals 0, suffixes 1, longest 2, first bytes 3, patterns 4, count 5, size 6; pattern: text 0, name 2, weight 3, prefix 4, last bytes 5, size 6; match: name index, weight | case-sensitive bit 31
        """,
        2: """
        header: magic 0, format 8, kind 12, root 16, words 20, pool 24, layout 28, checksum 32, size 40
        bucket: hash 0, key 1, length 2, value 3, size 4
        root: count 0, types 1, identifiers 2, tagClassCount 3, tagClasses 4, diagnostics 5, diagnosticCount 6, mimeFlags 7, mimeIndex 8, mimeLayers 9, mimeNameSlots 11, extra 12, dataSlot 14, nameAnswers 15, size 16
        record: identifier 0, kind 2, position 3, file 4, description 6, referenceURL 8, version 10, iconName 12, conformsTo 14, tags 15, parents 16, ancestors 17, children 18, flags 19, shadowed 20, supplements 21, size 22
        kind bits: declaration mask 255, source << 8, position kind << 16
        flags: conformsToData 1, ancestorsUnlisted 2; system-only tag bit 2147483648; ancestor list limit 256
        tag class entry: name 0, table 2, size 3
        tag list entry: class 0, tags 2, size 3
        origin entry: source and kind 0, position 1, file 2, size 4
        diagnostic entry: severity 0, position kind 1, position 2, file 3, message 5, size 7
        name answer entry: slot 0, flags 1, patterns 2; flags: check literals 1, case matters 2; pattern words 2, limit 64
        sources: bundled, user, application, sharedMIMEInfo, mimeTypes
        MIME name index: root: layerCount 0, nameCount 1, namesStart 2, layers 3; layer: literals 0, suffixes 1, longest 2, first bytes 3, patterns 4, count 5, size 6; pattern: text 0, name 2, weight 3, prefix 4, last bytes 5, size 6; match: name index, weight | case-sensitive bit 31
        """,
        3: """
        header: magic 0, format 8, kind 12, root 16, words 20, pool 24, layout 28, checksum 32, size 40
        bucket: hash 0, key 1, length 2, value 3, size 4
        root: count 0, types 1, identifiers 2, tagClassCount 3, tagClasses 4, diagnostics 5, diagnosticCount 6, mimeFlags 7, mimeIndex 8, mimeLayers 9, mimeNameSlots 11, extra 12, dataSlot 14, nameAnswers 15, size 16
        record: identifier 0, kind 2, position 3, file 4, description 6, referenceURL 8, version 10, iconName 12, conformsTo 14, tags 15, parents 16, ancestors 17, children 18, flags 19, shadowed 20, supplements 21, size 22
        kind bits: declaration mask 255, source << 8, position kind << 16
        flags: conformsToData 1, ancestorsUnlisted 2, declared place of the first MIME type << 8 (up to 65535); system-only tag bit 2147483648; ancestor list limit 256
        identifier table: each type's identifier, and the identifier of each system type that joined a declared type, naming that type
        tag class entry: name 0, table 2, size 3
        tag list entry: class 0, tags 2, size 3
        origin entry: source and kind 0, position 1, file 2, size 4
        diagnostic entry: severity 0, position kind 1, position 2, file 3, message 5, size 7
        name answer entry: slot 0, flags 1, patterns 2; flags: check literals 1, case matters 2; pattern words 2, limit 64
        sources: bundled, user, application, sharedMIMEInfo, mimeTypes
        MIME name index: root: layerCount 0, nameCount 1, namesStart 2, layers 3; layer: literals 0, suffixes 1, longest 2, first bytes 3, patterns 4, count 5, size 6; pattern: text 0, name 2, weight 3, prefix 4, last bytes 5, size 6; match: name index, weight | case-sensitive bit 31
        """,
        4: """
        header: magic 0, format 8, kind 12, root 16, words 20, pool 24, layout 28, checksum 32, size 40
        bucket: hash 0, key 1, length 2, value 3, size 4
        root: count 0, types 1, identifiers 2, tagClassCount 3, tagClasses 4, diagnostics 5, diagnosticCount 6, mimeFlags 7, mimeIndex 8, mimeLayers 9, mimeNameSlots 11, extra 12, dataSlot 14, nameAnswers 15, mimeContent 16, size 17
        record: identifier 0, kind 2, position 3, file 4, description 6, referenceURL 8, version 10, iconName 12, conformsTo 14, tags 15, parents 16, ancestors 17, children 18, flags 19, shadowed 20, supplements 21, size 22
        kind bits: declaration mask 255, source << 8, position kind << 16
        flags: conformsToData 1, ancestorsUnlisted 2, declared place of the first MIME type << 8 (up to 65535); system-only tag bit 2147483648; ancestor list limit 256
        identifier table: each type's identifier, and the identifier of each system type that joined a declared type, naming that type
        tag class entry: name 0, table 2, size 3
        tag list entry: class 0, tags 2, size 3
        origin entry: source and kind 0, position 1, file 2, size 4
        diagnostic entry: severity 0, position kind 1, position 2, file 3, message 5, size 7
        name answer entry: slot 0, flags 1, patterns 2; flags: check literals 1, case matters 2; pattern words 2, limit 64
        sources: bundled, user, application, sharedMIMEInfo, mimeTypes
        MIME name index: root: layerCount 0, nameCount 1, namesStart 2, layers 3; layer: literals 0, suffixes 1, longest 2, first bytes 3, patterns 4, count 5, size 6; pattern: text 0, name 2, weight 3, prefix 4, last bytes 5, size 6; match: name index, weight | case-sensitive bit 31
        MIME content index: root: sniff length 0, layers 1, aliases 2, parents 3, magic types 4, size 5; layer: rule count 0, rules 1, size 2; rule: type 0, priority 2, count 3, matchlets 4, size 5; matchlet: start 0, length 1, value 2, mask 4, count 6, children 7, size 8
        """,
    ]

    @Test func theLayoutIsTheOneItsVersionRecords() {
        let version = RegistryImage.kind.layoutVersion
        #expect(
            Self.layouts[version] == RegistryImage.layoutDescription,
            """
            The registry image layout changed. Raise RegistryImage.kind.layoutVersion to \(version + 1), \
            add the new layout to RegistryImageLayoutTests.layouts under it, and update docs/compiled-image.md.
            """)
        #expect(Set(Self.layouts.keys) == Set(1...version), "every version from 1 on has its layout, and no later one")
    }

    @Test func anImageOfAnotherLayoutOrFormatIsRefused() throws {
        let bytes = RegistryBuilder.bundled().compile()
        _ = try ImageView(bytes, kind: RegistryImage.kind)
        func patched(_ offset: Int, _ value: UInt32) -> [UInt8] {
            var copy = bytes
            withUnsafeBytes(of: value.littleEndian) { for (i, byte) in $0.enumerated() { copy[offset + i] = byte } }
            return copy
        }
        let next = RegistryImage.kind.layoutVersion + 1
        #expect {
            _ = try ImageView(patched(ImageHeader.layoutVersion, next), kind: RegistryImage.kind)
        } throws: { error in
            "\(error)" == "image holds kind 55544952 layout \(next), expected kind 55544952 layout \(next - 1)"
        }
        #expect {
            _ = try ImageView(patched(ImageHeader.formatVersion, 9), kind: RegistryImage.kind)
        } throws: { error in
            "\(error)" == "image format 9, expected 2"
        }
    }
}
