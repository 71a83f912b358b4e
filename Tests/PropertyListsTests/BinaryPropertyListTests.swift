import Foundation
import Testing

@testable import PropertyLists

private func fixture(_ name: String) throws -> [UInt8] {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
    return Array(try Data(contentsOf: url))
}

@Suite struct BinaryPropertyListTests {
    @Test func readsEveryValueKind() throws {
        let value = try PropertyList.parse(fixture("all-types.bplist"))
        #expect(value["string"]?.value == .string("héllo wörld ✓"))
        #expect(value["ascii"]?.value == .string("plain"))
        #expect(value["integer"]?.value == .integer(-42))
        #expect(value["big"]?.value == .integer(1 << 62))
        #expect(value["real"]?.value == .real(2.5))
        #expect(value["yes"]?.value == .bool(true))
        #expect(value["no"]?.value == .bool(false))
        #expect(value["data"]?.value == .data([0, 1, 0xFE, 0xFF]))
        #expect(value["dict"]?["k"]?.value == .string("v"))
        let array = try #require(value["array"]?.arrayValue)
        #expect(array.map(\.value).prefix(2) == [.string("a"), .integer(1)])
        #expect(array[2].arrayValue?.first?.value == .string("nested"))
        // The same instant as the XML form gives.
        let xml = try PropertyList.parse(Array("<plist><date>2020-05-17T12:30:00Z</date></plist>".utf8))
        #expect(value["date"]?.value == xml.value)
        #expect(value.dictionaryValue?.first?.key == "string")
        if case .offset(let n) = value.location { #expect(n >= 8) } else { Issue.record("no offset") }
    }

    @Test(arguments: [
        ("cyclic.bplist", "referenced more than once"),
        ("shared-container.bplist", "referenced more than once"),
        ("int128.bplist", "64 bits"),
        ("nan-date.bplist", "finite"),
        ("bad-offset.bplist", "outside"),
        ("long-string.bplist", "exceeds the file size"),
        ("truncated.bplist", "trailer"),
        ("deep.bplist", "nesting"),
        ("number-key.bplist", "not a string"),
    ])
    func rejectsHostileFiles(name: String, expected: String) throws {
        let bytes = try fixture(name)
        do {
            _ = try PropertyList.parse(bytes)
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.message.contains(expected), "\(name): \(error)")
        }
    }

    @Test func rejectsEveryTruncationOfAValidFile() throws {
        let bytes = try fixture("all-types.bplist")
        for length in 0..<bytes.count {
            #expect(throws: PropertyListError.self) { try PropertyList.parse(Array(bytes.prefix(length))) }
        }
    }

    /// A real-sized bplist00 in which repeated strings are stored once and
    /// named from every place they occur (the facts of Data/CoreTypes.plist,
    /// written by tools/make-plist-fixtures.py as Apple's writer lays out
    /// CoreTypes' own Info.plist).
    @Test func readsARealSizedFileWithSharedStrings() throws {
        let bytes = try fixture("coretypes.bplist")
        #expect(bytes.count > 100_000)
        let value = try PropertyList.parse(bytes)
        let exported = try #require(value["UTExportedTypeDeclarations"]?.arrayValue)
        #expect(exported.count == 667)
        #expect(value["UTImportedTypeDeclarations"]?.arrayValue?.count == 206)
        // "public.data" is one object in the file and a parent of many types.
        let dataChildren = exported.filter { declaration in
            declaration["UTTypeConformsTo"].map { conforms in
                conforms.arrayValue?.contains { $0.value == .string("public.data") }
                    ?? (conforms.value == .string("public.data"))
            } ?? false
        }
        #expect(dataChildren.count == 81)
        #expect(bytes.count(of: Array("public.data".utf8)) < 5)
    }
}

/// A small binary property list that names one large string from many places.
@Suite struct BinaryPropertyListAmplificationTests {
    /// An array of `references` one-byte references, all to one string of `length` bytes.
    static func amplified(references: Int, length: Int) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        let arrayOffset = bytes.count
        // Array: marker 0xAF, then its count as an integer object (4 bytes), then the references.
        bytes += [0xAF, 0x12] + withUnsafeBytes(of: UInt32(references).bigEndian, Array.init)
        bytes += [UInt8](repeating: 1, count: references)
        let stringOffset = bytes.count
        bytes += [0x5F, 0x12] + withUnsafeBytes(of: UInt32(length).bigEndian, Array.init)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: length)
        let tableOffset = bytes.count
        bytes += withUnsafeBytes(of: UInt32(arrayOffset).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt32(stringOffset).bigEndian, Array.init)
        bytes += [0, 0, 0, 0, 0, 0, 4, 1]
        bytes += withUnsafeBytes(of: UInt64(2).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(0).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(tableOffset).bigEndian, Array.init)
        return bytes
    }

    @Test func aStringReferencedAMillionTimesIsRefused() throws {
        let bytes = Self.amplified(references: 1_000_000, length: 100_000)
        #expect(bytes.count < 1_200_000)
        // Refused once what the references expand to passes the limit: the
        // work is bounded by that count, not by how many references remain.
        do {
            _ = try PropertyList.parse(bytes)
            Issue.record("read")
        } catch {
            #expect(error.description.contains("expand past 67108864 bytes"))
        }
        // The same shape within the limit is read.
        let small = try PropertyList.parse(Self.amplified(references: 100, length: 1_000))
        guard case .array(let items) = small.value else {
            Issue.record("not an array")
            return
        }
        #expect(items.count == 100)
    }
}

extension Array where Element == UInt8 {
    /// How many times `needle` occurs.
    func count(of needle: [UInt8]) -> Int {
        guard !needle.isEmpty, needle.count <= count else { return 0 }
        return (0...(count - needle.count)).filter { self[$0..<($0 + needle.count)].elementsEqual(needle) }.count
    }
}
