import Foundation
import Testing

@testable import PropertyLists

private func parse(_ xml: String) throws(PropertyListError) -> PropertyList {
    try PropertyList.parse(Array(xml.utf8))
}

private func plist(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(body)
    </plist>
    """
}

private func failure(_ xml: String) -> PropertyListError? {
    do {
        _ = try parse(xml)
        return nil
    } catch {
        return error
    }
}

@Suite struct XMLPropertyListTests {
    @Test func readsEveryValueKindWithLines() throws {
        let value = try parse(
            plist(
                """
                <dict>
                    <key>s</key><string>a &amp; b &lt;c&gt;</string>
                    <key>blank</key><string> </string>
                    <key>cdata</key><string><![CDATA[<raw>]]></string>
                    <key>i</key><integer>-12</integer>
                    <key>hex</key><integer>0x1F</integer>
                    <key>r</key><real>2.5</real>
                    <key>t</key><true/>
                    <key>f</key><false/>
                    <key>d</key><date>2001-01-02T00:00:01Z</date>
                    <key>data</key><data>AAH+/w==</data>
                    <key>a</key>
                    <array>
                        <string>x</string>
                        <array/>
                        <dict/>
                    </array>
                </dict>
                """))
        #expect(value["s"]?.value == .string("a & b <c>"))
        #expect(value["blank"]?.value == .string(" "))
        #expect(value["cdata"]?.value == .string("<raw>"))
        #expect(value["i"]?.value == .integer(-12))
        #expect(value["hex"]?.value == .integer(31))
        #expect(value["r"]?.value == .real(2.5))
        #expect(value["t"]?.value == .bool(true))
        #expect(value["f"]?.value == .bool(false))
        #expect(value["d"]?.value == .date(86_401))
        #expect(value["data"]?.value == .data([0, 1, 0xFE, 0xFF]))
        #expect(value["a"]?.arrayValue?.count == 3)
        #expect(value.location == .line(4))
        #expect(value["i"]?.location == .line(8))
        #expect(
            value.dictionaryValue?.map(\.key) == ["s", "blank", "cdata", "i", "hex", "r", "t", "f", "d", "data", "a"])
    }

    @Test func refusesEntityDeclarationsBeforeTheyAreUsed() throws {
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [
              <!ENTITY host SYSTEM "file:///etc/hostname">
            ]>
            <plist version="1.0"><string>&host;</string></plist>
            """
        let error = try #require(failure(external))
        #expect(error.message.contains("entity"))
        #expect(error.position == .line(3))

        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
             <!ENTITY lol "lol">
             <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
             <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
            ]>
            <plist><string>&lol3;</string></plist>
            """
        #expect(failure(laughs)?.message.contains("entity") == true)

        let parameter = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [ <!ENTITY % remote SYSTEM "file:///etc/passwd"> %remote; ]>
            <plist><string>x</string></plist>
            """
        #expect(failure(parameter)?.message.contains("entity") == true)
    }

    @Test func undeclaredEntityReferenceIsAnError() {
        #expect(failure(plist("<string>&nope;</string>")) != nil)
    }

    @Test func reportsMalformedXMLWithItsLine() throws {
        let error = try #require(
            failure("<?xml version=\"1.0\"?>\n<plist>\n<dict>\n<key>a</key>\n<string>b</strin>\n</dict>\n</plist>"))
        #expect(error.position == .line(5))
    }

    @Test(arguments: [
        ("<dict><key>a</key></dict>", "has no value"),
        ("<dict><string>a</string></dict>", "expected <key>"),
        ("<dict><key>a</key><true/><key>a</key><false/></dict>", "duplicate key"),
        ("<integer>99999999999999999999</integer>", "64-bit"),
        ("<integer>12abc</integer>", "64-bit"),
        ("<real>fast</real>", "real"),
        ("<date>2020-02-30T00:00:00Z</date>", "date"),
        ("<data>@@@</data>", "base64"),
        ("<true>yes</true>", "empty"),
        ("<string><b>x</b></string>", "text only"),
        ("<widget/>", "unknown element"),
        ("<array>stray<string>x</string></array>", "text outside"),
        ("<key>a</key>", "outside"),
    ])
    func rejectsInvalidValues(body: String, expected: String) throws {
        let error = try #require(failure(plist(body)))
        #expect(error.message.contains(expected), "\(error)")
    }

    @Test func rejectsWrongRootAndEmptyPlist() {
        #expect(failure("<dict></dict>")?.message.contains("expected <plist>") == true)
        #expect(failure("<plist></plist>")?.message.contains("holds no value") == true)
        #expect(failure("<plist><true/><false/></plist>")?.message.contains("more than one") == true)
        #expect(failure("") != nil)
    }

    @Test func limitsNestingDepth() throws {
        let deep = String(repeating: "<array>", count: 200) + String(repeating: "</array>", count: 200)
        let error = try #require(failure(plist(deep)))
        #expect(error.message.contains("nesting") || error.message.lowercased().contains("depth"), "\(error)")
        let limits = PropertyListLimits(maximumDepth: 3)
        #expect(throws: PropertyListError.self) {
            try PropertyList.parse(
                Array(plist("<array><array><array><array/></array></array></array>").utf8), limits: limits)
        }
        #expect(throws: Never.self) {
            try PropertyList.parse(Array(plist("<array><array><array/></array></array>").utf8), limits: limits)
        }
    }

    @Test func limitsObjectCountAndSize() {
        let many = plist("<array>" + String(repeating: "<true/>", count: 50) + "</array>")
        #expect(throws: PropertyListError.self) {
            try PropertyList.parse(Array(many.utf8), limits: PropertyListLimits(maximumObjects: 10))
        }
        #expect(throws: PropertyListError.self) {
            try PropertyList.parse(Array(many.utf8), limits: PropertyListLimits(maximumBytes: 100))
        }
    }
}
