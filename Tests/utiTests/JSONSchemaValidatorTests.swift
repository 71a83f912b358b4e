import Foundation
import Testing

/// docs/json-schema.json, found beside this file's folder, read once.
enum SchemaFile {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/json-schema.json").standardizedFileURL

    private static let loaded = Result { try JSONSchema(contentsOf: url) }

    static func schema() throws -> JSONSchema { try loaded.get() }
}

/// The validator on its own, with schemas small enough to read: each kind
/// of mistake is caught and named where it is, and conforming input passes.
@Suite struct JSONSchemaValidatorTests {
    static let schemaText = #"""
        {
          "$defs": {
            "item": {
              "description": "An item.",
              "type": "object",
              "properties": {
                "name": { "description": "Its name.", "type": "string" },
                "size": { "description": "Its size.", "type": ["integer", "null"] },
                "kind": { "description": "Its kind.", "enum": ["file", "folder"] },
                "tags": { "description": "Its tags.", "type": "array", "items": { "type": "string" } },
                "extra": { "description": "A map.", "type": "object", "additionalProperties": { "type": "boolean" } }
              },
              "required": ["name", "kind"],
              "additionalProperties": false
            },
            "list": { "description": "Items.", "type": "array", "items": { "$ref": "#/$defs/item" } },
            "either": { "description": "A name or an item.", "oneOf": [{ "type": "string" }, { "$ref": "#/$defs/item" }] },
            "some": { "description": "A number or a name.", "anyOf": [{ "type": "number" }, { "type": "string" }] },
            "yes": { "description": "Only true.", "const": true }
          }
        }
        """#

    static var schema: JSONSchema { JSONSchema(try! JSONValue.parse(schemaText)) }

    static let cases: [(String, String, [String])] = [
        // Conforming input passes.
        (
            "list",
            #"[{"name": "a", "kind": "file", "size": 3, "tags": ["x"], "extra": {"k": true}}, {"name": "b", "kind": "folder", "size": null}]"#,
            []
        ),
        ("list", "[]", []),
        ("either", #""plain""#, []),
        ("some", "1.5", []),
        ("some", "2", []),
        ("yes", "true", []),
        // A required key missing.
        ("list", #"[{"kind": "file"}]"#, [#"$[0]: the required key "name" is missing"#]),
        // A key the schema does not name.
        (
            "list", #"[{"name": "a", "kind": "file", "colour": "red"}]"#,
            ["$[0].colour: a key the schema does not allow"]
        ),
        // Wrong types, booleans and fractions included.
        ("list", #"[{"name": 1, "kind": "file"}]"#, ["$[0].name: integer where string is expected"]),
        (
            "list", #"[{"name": "a", "kind": "file", "size": true}]"#,
            ["$[0].size: boolean where integer or null is expected"]
        ),
        (
            "list", #"[{"name": "a", "kind": "file", "size": 1.5}]"#,
            ["$[0].size: number where integer or null is expected"]
        ),
        ("list", #"{"name": "a", "kind": "file"}"#, ["$: object where array is expected"]),
        (
            "list", #"[{"name": "a", "kind": "file", "tags": ["x", 2]}]"#,
            ["$[0].tags[1]: integer where string is expected"]
        ),
        (
            "list", #"[{"name": "a", "kind": "file", "extra": {"a.b": 1}}]"#,
            [#"$[0].extra["a.b"]: integer where boolean is expected"#]
        ),
        // A value outside the enum, or not the constant.
        ("list", #"[{"name": "a", "kind": "link"}]"#, [#"$[0].kind: "link" is none of "file", "folder""#]),
        ("yes", "1", ["$: 1 where true is expected"]),
        ("yes", "false", ["$: false where true is expected"]),
        // Every violation is reported, each at its place.
        (
            "list", #"[{"name": "a", "kind": "file"}, {"name": null, "kind": "file", "x": 1}]"#,
            ["$[1].name: null where string is expected", "$[1].x: a key the schema does not allow"]
        ),
    ]

    @Test(arguments: cases)
    func validates(definition: String, instance: String, expected: [String]) throws {
        let result = Self.schema.validate(try JSONValue.parse(instance), definition: definition)
        #expect(result.violations.map(\.description) == expected)
    }

    @Test func alternativesMatchExactlyOnceForOneOf() throws {
        let none = Self.schema.validate(try JSONValue.parse("3"), definition: "either")
        #expect(none.violations.count == 1)
        #expect(none.violations.first?.message.hasPrefix("matches none of the 2 alternatives of oneOf") == true)
        let anyNone = Self.schema.validate(try JSONValue.parse("null"), definition: "some")
        #expect(anyNone.violations.map(\.path) == ["$"])
        let twice = JSONSchema(
            try JSONValue.parse(#"{"$defs": {"x": {"oneOf": [{"type": "string"}, {"enum": ["a"]}]}}}"#))
        #expect(
            twice.validate(.string("a"), definition: "x").violations.map(\.description) == [
                "$: matches 2 alternatives of oneOf (1, 2), not one"
            ])
        #expect(twice.validate(.string("b"), definition: "x").isValid)
    }

    /// A definition counts as used only where the instance matched it.
    @Test func definitionsAreCountedWhereTheyMatched() throws {
        let list = Self.schema.validate(try JSONValue.parse(#"[{"name": "a", "kind": "file"}]"#), definition: "list")
        #expect(list.isValid && list.definitions == ["list", "item"])
        let empty = Self.schema.validate(try JSONValue.parse("[]"), definition: "list")
        #expect(empty.definitions == ["list"])
        let plain = Self.schema.validate(.string("plain"), definition: "either")
        #expect(plain.definitions == ["either"])
        let bad = Self.schema.validate(try JSONValue.parse(#"[{"kind": "file"}]"#), definition: "list")
        #expect(bad.definitions.isEmpty)
    }

    /// What the validator would not check is refused, not passed over.
    @Test func keywordsOutsideTheSubsetAreViolations() throws {
        let schema = JSONSchema(
            try JSONValue.parse(
                ##"{"$defs": {"n": {"description": "d", "type": "integer", "minimum": 3}, "r": {"$ref": "#/$defs/gone"}}}"##
            ))
        #expect(
            schema.validate(.integer(1), definition: "n").violations.map(\.description) == [
                "$: the schema uses minimum, which this validator does not know"
            ])
        #expect(
            schema.validate(.integer(1), definition: "r").violations.map(\.message) == [
                ##""#/$defs/gone" names no definition"##
            ])
        #expect(
            schema.lint() == [
                "#/$defs/n/minimum: unsupported keyword", "#/$defs/r: no description",
                "#/$defs/r/$ref: \"#/$defs/gone\" names no definition",
            ])
    }

    @Test func theParserKeepsTypesApartAndRefusesWhatIsNotJSON() throws {
        #expect(
            try JSONValue.parse(#" [true, 1, 1.0, -0.5e1, null, "\u00e9\ud83d\ude00\n\/"] "#)
                == .array([.bool(true), .integer(1), .number(1), .number(-5), .null, .string("é😀\n/")]))
        #expect(try JSONValue.parse("1") != JSONValue.parse("true"))
        #expect(try JSONValue.parse(#"{"b": 1, "a": [2]}"#).keys == ["b", "a"])
        for text in [
            "", "[1,]", "{\"a\":1,}", "01", "1.", "-", "[1] 2", #"{"a": 1, "a": 2}"#, #""\x""#, "\"a\nb\"", "tru",
            #""\ud800""#, "[", #"{"a" 1}"#, "'a'",
        ] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONValue.parse(text) }
        }
    }

    /// The schema file itself: only the subset, and a description for every
    /// definition and every key.
    @Test func theSchemaFileUsesTheSubsetAndDescribesEveryKey() throws {
        let schema = try SchemaFile.schema()
        #expect(schema.lint() == [])
        #expect(schema.definitionNames.count > 10)
    }
}
