import Testing

@testable import InboxProcessing

@Suite struct NumberedNameTests {
    func numbered(_ name: String, _ counter: Int = 1) -> String {
        String(
            decoding: NumberedName(FileName(name), isKnownExtension: knownExtensions).numbered(counter).bytes,
            as: UTF8.self)
    }

    @Test(arguments: [
        ("archive.tar.gz", "archive-1.tar.gz"),
        ("report.pdf", "report-1.pdf"),
        ("notes", "notes-1"),
        (".profile", ".profile-1"),
        (".config.txt", ".config-1.txt"),
        ("my.report.pdf", "my.report-1.pdf"),
        ("data.v2.unknownext", "data.v2-1.unknownext"),
        ("file.", "file.-1"),
        ("a..b", "a.-1.b"),
        ("-rf.txt", "-rf-1.txt"),
        ("Report.PDF", "Report-1.PDF"),
    ])
    func counterGoesBeforeTheWholeExtension(name: String, expected: String) {
        #expect(numbered(name) == expected)
    }

    @Test func counterHasNoUpperLimit() {
        #expect(numbered("report.pdf", 1_000_000) == "report-1000000.pdf")
    }

    @Test func longNamesAreShortenedOnACharacterBoundary() {
        // 126 two-byte characters and ".pdf": 256 bytes would pass the limit with "-1".
        let stem = String(repeating: "é", count: 125) + "x"
        let name = stem + ".pdf"
        #expect(name.utf8.count == 255)
        let result = NumberedName(FileName(name), isKnownExtension: knownExtensions).numbered(1)
        #expect(result.bytes.count <= 255)
        let text = try? #require(result.text)
        #expect(text == String(repeating: "é", count: 124) + "-1.pdf")
        // An odd cut would have split an "é": the result must stay valid UTF-8.
        let odd = String(repeating: "é", count: 126) + ".pd"
        #expect(NumberedName(FileName(odd), isKnownExtension: { _ in false }).numbered(12).text != nil)
    }

    @Test func anExtensionTooLongForAStemShortensTheWholeName() {
        let name = "x." + String(repeating: "e", count: 252)
        let result = NumberedName(FileName(name), isKnownExtension: { _ in false }).numbered(7)
        #expect(result.bytes.count == 255)
        #expect(result.text!.hasSuffix("e-7"))
    }

    @Test func bytesThatAreNotUTF8SurviveUnchanged() {
        let name: [UInt8] = Array("bad".utf8) + [0xFF, 0x0A] + Array("name.txt".utf8)
        let result = NumberedName(FileName(name), isKnownExtension: knownExtensions).numbered(3)
        #expect(result.bytes == Array("bad".utf8) + [0xFF, 0x0A] + Array("name-3.txt".utf8))
    }

    @Test func escapedNamesAreUnambiguous() {
        #expect(FileName([0x61, 0xFF, 0x0A, 0x5C]).escaped == "a\\xff\\n\\\\")
        #expect(FileName("café").escaped == "café")
        #expect(FileName([0x1B]).escaped == "\\x1b")
    }
}

@Suite struct NamePickerTests {
    @Test func findsTheFirstFreeCounterWithLogarithmicProbes() {
        for taken in [0, 1, 2, 3, 7, 100, 9_999, 10_000] {
            var picker = NamePicker()
            var probes = 0
            let counter = picker.firstCounter(for: FileName("report.pdf")) {
                probes += 1
                return $0 <= taken
            }
            #expect(counter == taken + 1)
            #expect(probes <= 2 * (Int.bitWidth - (taken + 1).leadingZeroBitCount) + 1)
        }
    }

    @Test func laterItemsWithTheSameNameStartAfterTheLastCounter() {
        var picker = NamePicker()
        picker.used(41, for: FileName("report.pdf"))
        var probed = false
        #expect(
            picker.firstCounter(for: FileName("report.pdf")) { _ in
                probed = true
                return true
            } == 42)
        #expect(!probed)
    }

    @Test func aGapIsAFreeCounter() {
        var picker = NamePicker()
        let taken: Set<Int> = [1, 2, 3, 5, 6]
        let counter = picker.firstCounter(for: FileName("a")) { taken.contains($0) }
        #expect(!taken.contains(counter))
        #expect(counter == 4)
    }
    /// The names one search tries, with `taken` names taken and `picker`
    /// as the picker's memory, and what it answers.
    private func tried(
        _ name: String, alwaysNumbered: Bool = false, taken: Set<String>, picker: inout NamePicker
    ) -> (tried: [String], answer: String?) {
        var tried: [String] = []
        let isKnownExtension = { (pathExtension: ArraySlice<UInt8>) in pathExtension.elementsEqual("tar.gz".utf8) }
        let isTaken = { (candidate: FileName) in taken.contains(candidate.text!) }
        let answer = picker.search(
            for: FileName(name), alwaysNumbered: alwaysNumbered, isKnownExtension: isKnownExtension, isTaken: isTaken
        ) { candidate in
            tried.append(candidate.text!)
            return taken.contains(candidate.text!) ? .taken : .placed(candidate.text!)
        }
        return (tried, answer)
    }

    @Test func aSearchTriesTheNameThenTheFirstCounterThenEachAfterIt() {
        var picker = NamePicker()
        #expect(tried("a.tar.gz", taken: [], picker: &picker) == (["a.tar.gz"], "a.tar.gz"))
        #expect(
            tried("a.tar.gz", taken: ["a.tar.gz", "a-1.tar.gz"], picker: &picker)
                == (["a.tar.gz", "a-2.tar.gz"], "a-2.tar.gz"))
        // The picker goes on after the counter it gave; a name taken since is passed over.
        #expect(
            tried("a.tar.gz", taken: ["a.tar.gz", "a-3.tar.gz"], picker: &picker)
                == (["a.tar.gz", "a-3.tar.gz", "a-4.tar.gz"], "a-4.tar.gz"))
        #expect(tried("b", alwaysNumbered: true, taken: [], picker: &picker) == (["b-1"], "b-1"))
    }

    @Test func aSearchEndsAfterItsLimitAndAStopIsNotRemembered() {
        var picker = NamePicker()
        var attempts = 0
        let noExtension = { (_: ArraySlice<UInt8>) in false }
        let neverTaken = { (_: FileName) in false }
        let none: String? = picker.search(
            for: FileName("a"), alwaysNumbered: false, isKnownExtension: noExtension, isTaken: neverTaken
        ) { _ in
            attempts += 1
            return .taken
        }
        #expect(none == nil && attempts == NamePicker.searchLimit)
        let stopped = picker.search(
            for: FileName("b"), alwaysNumbered: true, isKnownExtension: noExtension, isTaken: neverTaken
        ) { .stopped($0.text!) }
        #expect(stopped == "b-1")
        #expect(picker.firstCounter(for: FileName("b")) { _ in false } == 1)
    }
}
