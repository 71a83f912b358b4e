import Testing

@testable import uti

/// Reading the argument parser's description of a command: its JSON, and
/// which options take a value.
@Suite struct ParserModelTests {
    @Test func jsonIsReadWithEscapesAndNesting() throws {
        let text = #" { "a": [1, -2.5e3, true, false, null, "x\"\\\/\u00e9\ud83d\ude00\n\t"], "b": {}, "c": [] } "#
        let value = try #require(JSON.parse(text))
        let items = try #require(value["a"]?.elements)
        #expect(items.count == 6)
        #expect(items[5].text == "x\"\\/é😀\n\t")
        #expect(value["b"]?.elements == nil && value["c"]?.elements?.isEmpty == true)
        #expect(value["missing"] == nil)
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "\"open", "\"\\q\"", "\"\\ud83d\"", "[1] 2", "tru", "{\"a\":1,}",
        String(repeating: "[", count: 300) + String(repeating: "]", count: 300),
    ])
    func malformedJSONIsRefused(text: String) {
        #expect(JSON.parse(text) == nil)
    }

    @Test func optionsTakingValuesAreTheCommandsOwn() {
        #expect(ParserModel.optionsTakingValues(of: FileCommand.self) == ["--declarations", "--apps", "--language"])
        let setDefault = ParserModel.optionsTakingValues(of: SetDefault.self)
        #expect(setDefault.isSuperset(of: ["--file", "--role", "--add", "--remove", "--all-declared"]))
        // conforms' --file is a flag.
        #expect(!ParserModel.optionsTakingValues(of: Conforms.self).contains("--file"))
    }
}
