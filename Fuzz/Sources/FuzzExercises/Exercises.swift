import CompiledData
import PropertyLists
import SharedMIMEInfo
import UniformTypes

/// The limits property lists are fuzzed with: the standard ones.
public let fuzzLimits = PropertyListLimits.standard

/// Names tried against every fuzzed MIME database and registry: ordinary,
/// compound, hidden, case-folded, empty, and not UTF-8.
let probeNames = [
    "photo.JPG", "archive.tar.gz", ".bashrc", "README", "Makefile", "a.b.c.d.e.f", "", ".",
    "x.txt~", "core", "name with spaces.pdf", "\u{FF}\u{FE}.bin", String(repeating: "a", count: 300) + ".png",
]

/// Reads everything a MIME database offers, as a lookup would: its types
/// and their relations, names, and `content` sniffed.
public func exercise(_ database: MIMEDatabase, content: UnsafeRawBufferPointer) {
    for type in database.types.prefix(64) {
        _ = database.canonical(type)
        _ = database.parents(of: type)
        _ = database.isSubclass(type, of: "text/plain")
        _ = database.hasMagic(for: type)
        _ = database.comment(for: type, language: "de")
        _ = database.genericIcon(for: type)
    }
    for name in probeNames + database.types.prefix(8).map({ "x." + $0 }) {
        _ = database.nameMatches(name)
        _ = database.guess(name: name, data: nil)
    }
    _ = database.sniffLength
    _ = database.magicMatch(content)
    _ = database.guess(name: nil, data: content)
    _ = database.guess(name: "fuzz.txt", data: content)
    _ = database.treeMagic.count
}

/// Reads everything a registry offers through its public API, for the first
/// types it holds and for the usual lookups. For a registry read from an
/// image of `imageBytes` bytes, the strings its answers hold are counted and
/// must come to at most one work budget (`WorkBudget`) for each answer.
/// `content` is typed by the registry's MIME database, as a file's first bytes.
public func exercise(
    _ registry: TypeRegistry, imageBytes: Int? = nil,
    content: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
) {
    var answers = 0, received = 0
    // Scalars, not UTF-8 bytes: bytes that are not UTF-8 become one U+FFFD
    // (three bytes) each, so the scalars never outnumber the bytes read.
    func count(_ strings: [String]) {
        answers += 1
        received += strings.reduce(0) { $0 + $1.unicodeScalars.count }
    }
    func count(_ specs: [TagSpecification]) { count(specs.flatMap { [$0.tagClass.identifier] + $0.tags }) }
    count(registry.diagnostics.flatMap { [$0.file, $0.message] })
    for type in registry.allTypes.prefix(16) {
        count([type.identifier])
        _ = type.localizedDescription
        count(type.tagSpecification)
        count(type.orderedSupertypes.map(\.identifier))
        _ = type.conforms(to: .data)
        count([type.origin?.file ?? ""])
        let descendants = registry.descendants(of: type)
        count(descendants.map(\.identifier))
        count(registry.tags(of: type, tagClass: .filenameExtension, includingDescendants: true))
        count(registry.tagSpecification(of: type, includingDescendants: true))
        count(registry.declaredParents(of: descendants).flatMap { $0 })
        count(registry.supplemented(type).map(\.file))
        count(registry.overridden(type).map(\.file))
    }
    if let imageBytes {
        let budget = WorkBudget.bytes(forImageOf: imageBytes)
        precondition(received <= answers * budget, "\(received) bytes in \(answers) answers of \(budget)")
    }
    let typing = FileTyping(registry: registry)
    for name in probeNames {
        _ = registry.type(filenameExtension: name)
        _ = registry.type(mimeType: "image/" + name)
        _ = registry.type(identifier: "public." + name)
        _ = registry.types(tag: name, tagClass: .filenameExtension)
        // Names the compiled name table answers, and names it sends the long way.
        _ = typing.preferredType(forName: "x." + name).identifier
        _ = typing.preferredType(forName: "README." + name.uppercased()).identifier
    }
    if let database = registry.mimeDatabase {
        exercise(database, content: content)
    }
}

/// `bytes` with the checksum in its image header set to match its body, so
/// that a fuzzed image is read past the checksum.
public func withMatchingChecksum(_ bytes: inout [UInt8]) -> [UInt8] {
    guard bytes.count >= ImageView.headerSize else { return bytes }
    let sum = bytes.withUnsafeBytes {
        ImageHash.checksum(UnsafeRawBufferPointer(rebasing: $0[ImageView.headerSize...]))
    }
    for i in 0..<8 { bytes[ImageHeader.checksum + i] = UInt8(truncatingIfNeeded: sum >> (8 * UInt64(i))) }
    return bytes
}
