import Foundation
import Testing

@testable import PropertyLists

/// The code of each kind of property list that cannot be read, as
/// `PropertyList.parse` reports it.
@Suite struct PropertyListErrorCodeTests {
    private static func failure(_ bytes: [UInt8], limits: PropertyListLimits = .standard) -> PropertyListError? {
        do {
            _ = try PropertyList.parse(bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    private static func nested(_ depth: Int) -> String {
        "<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
            + "</plist>"
    }

    @Test(
        arguments: [
            ("<plist><dict><key>a</key>", PropertyListError.Code.malformed, "line 1: "),
            ("<array/>", .malformed, "line 1: root element is <array>, expected <plist>"),
            (
                "<plist><dict><key>a</key><string>1</string><key>a</key><true/></dict></plist>", .malformed,
                "line 1: duplicate key \"a\" in <dict>"
            ),
            ("<plist><integer>x</integer></plist>", .malformed, "line 1: \"x\" is not a 64-bit integer"),
            (
                "<?xml version=\"1.0\"?><!DOCTYPE p [<!ENTITY e \"x\">]><plist><string>&e;</string></plist>",
                .unsupported, "entity declarations are not accepted"
            ),
            (nested(129), .limitExceeded, "nesting deeper than 128"),
            (nested(300), .limitExceeded, "elements nested more than 256 deep"),
        ] as [(String, PropertyListError.Code, String)])
    func xmlFailuresHaveTheirCode(xml: String, code: PropertyListError.Code, text: String) throws {
        let error = try #require(Self.failure(Array(xml.utf8)), "\(xml) was read")
        #expect(error.code == code, "\(error)")
        #expect(error.description.contains(text), "\(error)")
    }

    @Test func limitsGiveLimitExceeded() throws {
        let bytes = Array("<plist><array><true/><true/><true/></array></plist>".utf8)
        let small = try #require(Self.failure(bytes, limits: PropertyListLimits(maximumBytes: 10)))
        #expect(
            small.code == .limitExceeded && small.message == "property list is \(bytes.count) bytes; the limit is 10")
        let few = try #require(Self.failure(bytes, limits: PropertyListLimits(maximumObjects: 2)))
        #expect(few.code == .limitExceeded && few.message == "more than 2 objects")
    }

    private static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return Array(try Data(contentsOf: url))
    }

    @Test(
        arguments: [
            ("truncated.bplist", PropertyListError.Code.malformed), ("bad-offset.bplist", .malformed),
            ("long-string.bplist", .malformed), ("nan-date.bplist", .malformed), ("number-key.bplist", .malformed),
            ("deep.bplist", .limitExceeded), ("int128.bplist", .unsupported), ("cyclic.bplist", .unsupported),
            ("shared-container.bplist", .unsupported),
        ] as [(String, PropertyListError.Code)])
    func binaryFailuresHaveTheirCode(name: String, code: PropertyListError.Code) throws {
        let error = try #require(Self.failure(try Self.fixture(name)), "\(name) was read")
        #expect(error.code == code, "\(name): \(error)")
    }

    /// A UID object (`0x80`, NSKeyedArchiver's), which no property list of
    /// types holds: unsupported, not malformed.
    @Test func aUIDObjectIsUnsupported() throws {
        // bplist00, one object (a one-byte UID), its offset, the trailer.
        var bytes = Array("bplist00".utf8) + [0x80, 0x01]
        bytes += [0x08]  // the offset table: object 0 at byte 8
        bytes += [0, 0, 0, 0, 0, 0] + [1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0]
        bytes += [0, 0, 0, 0, 0, 0, 0, 10]
        let error = try #require(Self.failure(bytes))
        #expect(error.code == .unsupported && error.message == "unsupported object marker 0x80", "\(error)")
    }

    /// The initializer without a code, kept from 0.1.0, gives `malformed`.
    @Test func theInitializerWithoutACodeGivesMalformed() {
        #expect(PropertyListError("x", at: .line(2)).code == .malformed)
        #expect(PropertyListError(.outOfMemory, "out of memory").code == .outOfMemory)
    }
}
