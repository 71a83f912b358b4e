import Foundation

/// A JSON value as `JSONValue.parse` reads it. Unlike `JSONSerialization`,
/// it keeps `true` apart from `1`, an integer apart from a fraction, and an
/// object's keys in their order.
enum JSONValue: Equatable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    /// A number written without a fraction or exponent that fits an `Int`.
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([Member])

    struct Member: Equatable, Sendable {
        var key: String
        var value: JSONValue
    }

    /// The value of `key` when this is an object that has it.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members.first { $0.key == key }?.value }
        return nil
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var keys: [String] {
        if case .object(let members) = self { return members.map(\.key) }
        return []
    }

    /// The JSON type name, as a schema's `type` spells it.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Equal as JSON values: numbers by value, objects whatever their key order.
    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.integer(let x), .number(let y)), (.number(let y), .integer(let x)): Double(x) == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)):
            x.count == y.count && x.allSatisfy { member in b[member.key] == member.value }
        default: false
        }
    }

    /// Compact JSON, for messages.
    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let n): return String(n)
        case .number(let x): return String(x)
        case .string(let text):
            var quoted = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"", "\\": quoted += "\\" + String(scalar)
                case "\n": quoted += "\\n"
                case _ where scalar.value < 0x20: quoted += String(format: "\\u%04x", scalar.value)
                default: quoted.unicodeScalars.append(scalar)
                }
            }
            return quoted + "\""
        case .array(let items): return "[" + items.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            return "{"
                + members.map { JSONValue.string($0.key).description + ":" + $0.value.description }
                .joined(separator: ",") + "}"
        }
    }
}

/// Where and why a text is not JSON.
struct JSONParseError: Error, CustomStringConvertible {
    var offset: Int
    var reason: String
    var description: String { "byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON document (RFC 8259): whitespace may surround it,
    /// nothing else may follow it, and an object may not repeat a key.
    static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(text.utf8))
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        if parser.position != parser.bytes.count { throw parser.error("unexpected text after the value") }
        return value
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ reason: String) -> JSONParseError { JSONParseError(offset: position, reason: reason) }

    var next: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let byte = next, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    mutating func expect(_ literal: String) throws(JSONParseError) {
        for byte in literal.utf8 {
            guard next == byte else { throw error("expected \(literal)") }
            position += 1
        }
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < 512 else { throw error("nested too deeply") }
        guard let byte = next else { throw error("unexpected end of text") }
        switch byte {
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if next == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            switch next {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(items)
            default: throw error("expected , or ] in an array")
            }
        }
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        position += 1
        var members: [JSONValue.Member] = []
        var seen = Set<String>()
        skipWhitespace()
        if next == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard next == UInt8(ascii: "\"") else { throw error("expected a key") }
            let keyStart = position
            let key = try string()
            guard seen.insert(key).inserted else {
                throw JSONParseError(offset: keyStart, reason: "the key \"\(key)\" is repeated")
            }
            skipWhitespace()
            try expect(":")
            skipWhitespace()
            members.append(JSONValue.Member(key: key, value: try value(depth: depth + 1)))
            skipWhitespace()
            switch next {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default: throw error("expected , or } in an object")
            }
        }
    }

    mutating func number() throws(JSONParseError) -> JSONValue {
        let start = position
        func digits() -> Int {
            let first = position
            while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
            return position - first
        }
        if next == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0 else { throw error("a number needs digits") }
        if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") {
            throw JSONParseError(offset: integerStart, reason: "a number may not start with 0")
        }
        var integral = true
        if next == UInt8(ascii: ".") {
            position += 1
            integral = false
            guard digits() > 0 else { throw error("a fraction needs digits") }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            position += 1
            integral = false
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error("an exponent needs digits") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if integral, let n = Int(text) { return .integer(n) }
        guard let x = Double(text) else { throw JSONParseError(offset: start, reason: "bad number \(text)") }
        return .number(x)
    }

    mutating func string() throws(JSONParseError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var run = position
        // Copies the bytes since `run` (valid UTF-8, checked by decoding).
        func flush(_ upTo: Int) throws(JSONParseError) {
            guard run < upTo else { return }
            guard let text = String(validating: bytes[run..<upTo], as: UTF8.self) else {
                throw JSONParseError(offset: run, reason: "a string is not UTF-8")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard let byte = next else { throw error("a string is not closed") }
            if byte == UInt8(ascii: "\"") {
                try flush(position)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("a control character in a string must be escaped") }
            guard byte == UInt8(ascii: "\\") else {
                position += 1
                continue
            }
            try flush(position)
            position += 1
            guard let escaped = next else { throw error("a string is not closed") }
            position += 1
            switch escaped {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    try expect("\\u")
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("a lone high surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("a lone surrogate") }
                scalars.append(scalar)
            default: throw error("unknown escape")
            }
            run = position
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count,
            let code = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
        else { throw error("\\u needs four hexadecimal digits") }
        position += 4
        return code
    }
}

/// One place an instance breaks its schema, or the schema is outside the
/// subset this validator knows.
struct SchemaViolation: CustomStringConvertible, Equatable, Sendable {
    /// Where in the instance: `$`, then `.key` (or `["key"]`) and `[index]`.
    var path: String
    var message: String
    var description: String { "\(path): \(message)" }
}

/// What validating an instance found: every violation, and the `$defs`
/// entries the instance matched (through a `$ref` that validated, on
/// every `oneOf`/`anyOf` branch that matched).
struct SchemaValidation: Sendable {
    var violations: [SchemaViolation] = []
    var definitions: Set<String> = []
    var isValid: Bool { violations.isEmpty }
}

/// A JSON Schema (draft 2020-12 spelling) restricted to the keywords
/// docs/json-schema.json uses: `type` (a name or a list of names),
/// `properties`, `required`, `additionalProperties` (false or a schema),
/// `items` (one schema), `enum`, `const`, `oneOf`, `anyOf`, `$ref` to
/// `#/$defs/NAME`, and the annotations `description`, `title`, `$schema`
/// (`$defs` at the top). Any other keyword is a violation, so a schema can
/// never pass by using what this validator would ignore.
struct JSONSchema: Sendable {
    let document: JSONValue

    static let keywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "oneOf", "anyOf",
        "$ref", "description",
    ]
    static let topKeywords: Set<String> = ["$schema", "title", "description", "$defs"]
    static let typeNames: Set<String> = ["null", "boolean", "integer", "number", "string", "array", "object"]

    init(_ document: JSONValue) { self.document = document }

    init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        self.init(try JSONValue.parse(text))
    }

    /// The names under `$defs`, in order.
    var definitionNames: [String] { document["$defs"]?.keys ?? [] }

    /// Validates `instance` against `#/$defs/definition`.
    func validate(_ instance: JSONValue, definition: String) -> SchemaValidation {
        validate(instance, against: .object([JSONValue.Member(key: "$ref", value: .string("#/$defs/\(definition)"))]))
    }

    /// Validates `instance` against `schema`, a schema within this document.
    func validate(_ instance: JSONValue, against schema: JSONValue) -> SchemaValidation {
        var result = SchemaValidation()
        check(instance, schema, path: "$", references: 0, into: &result)
        return result
    }

    /// Every schema in the document outside the subset, and every
    /// definition, and every key of an object schema, without a
    /// description: what no instance can show.
    func lint() -> [String] {
        var problems: [String] = []
        guard case .object(let top) = document else { return ["the schema is not an object"] }
        for member in top where !Self.topKeywords.contains(member.key) {
            problems.append("#: unsupported top-level keyword \(member.key)")
        }
        guard case .object(let definitions)? = document["$defs"] else { return problems + ["#: no $defs"] }
        for definition in definitions {
            let place = "#/$defs/\(definition.key)"
            if definition.value["description"]?.stringValue?.isEmpty != false {
                problems.append("\(place): no description")
            }
            lint(definition.value, place: place, into: &problems)
        }
        return problems
    }

    private func lint(_ schema: JSONValue, place: String, into problems: inout [String]) {
        guard case .object(let members) = schema else {
            problems.append("\(place): a schema must be an object")
            return
        }
        for member in members {
            let here = place + "/" + member.key
            switch member.key {
            case "properties":
                guard case .object(let properties) = member.value else {
                    problems.append("\(here): must be an object")
                    continue
                }
                // A branch of oneOf that only narrows keys its object already
                // describes (no type of its own) needs no descriptions again.
                let declaresObject =
                    schema["type"] == .string("object")
                    || schema["type"]?.arrayValue?.contains(.string("object")) == true
                for property in properties {
                    if declaresObject && property.value["description"]?.stringValue?.isEmpty != false {
                        problems.append("\(here)/\(property.key): no description")
                    }
                    lint(property.value, place: here + "/" + property.key, into: &problems)
                }
            case "items": lint(member.value, place: here, into: &problems)
            case "additionalProperties":
                if member.value != .bool(false) { lint(member.value, place: here, into: &problems) }
            case "oneOf", "anyOf":
                for (index, branch) in (member.value.arrayValue ?? []).enumerated() {
                    lint(branch, place: "\(here)/\(index)", into: &problems)
                }
            case "$ref":
                if definition(member.value) == nil { problems.append("\(here): \(member.value) names no definition") }
            case let keyword where !Self.keywords.contains(keyword):
                problems.append("\(here): unsupported keyword")
            default: break
            }
        }
    }

    /// The definition `#/$defs/NAME` names: its name and schema.
    private func definition(_ reference: JSONValue) -> (String, JSONValue)? {
        guard let text = reference.stringValue, text.hasPrefix("#/$defs/") else { return nil }
        let name = String(text.dropFirst("#/$defs/".count))
        return document["$defs"]?[name].map { (name, $0) }
    }

    static func path(_ base: String, key: String) -> String {
        let plain =
            !key.isEmpty && key.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) }
        return plain ? "\(base).\(key)" : "\(base)[\(JSONValue.string(key))]"
    }

    private func check(
        _ instance: JSONValue, _ schema: JSONValue, path: String, references: Int, into result: inout SchemaValidation
    ) {
        func fail(_ message: String) { result.violations.append(SchemaViolation(path: path, message: message)) }
        guard case .object(let keywords) = schema else {
            fail("the schema here is not an object: \(schema)")
            return
        }
        for keyword in keywords.map(\.key) where !Self.keywords.contains(keyword) {
            fail("the schema uses \(keyword), which this validator does not know")
        }
        if let reference = schema["$ref"] {
            guard let (name, target) = definition(reference) else {
                fail("\(reference) names no definition")
                return
            }
            // A chain of references that never reaches a value would not end.
            guard references < 32 else {
                fail("references loop through \(name)")
                return
            }
            var inner = SchemaValidation()
            check(instance, target, path: path, references: references + 1, into: &inner)
            if inner.isValid { inner.definitions.insert(name) }
            result.violations += inner.violations
            result.definitions.formUnion(inner.definitions)
        }
        if let type = schema["type"] {
            let names = type.arrayValue?.compactMap(\.stringValue) ?? type.stringValue.map { [$0] } ?? []
            if names.isEmpty || names.contains(where: { !Self.typeNames.contains($0) }) {
                fail("the schema's type \(type) is not a type name or a list of them")
                return
            }
            let actual = instance.typeName
            guard names.contains(actual) || (actual == "integer" && names.contains("number")) else {
                fail("\(actual) where \(names.joined(separator: " or ")) is expected")
                return
            }
        }
        if let allowed = schema["enum"] {
            guard let values = allowed.arrayValue else {
                fail("the schema's enum is not a list")
                return
            }
            if !values.contains(instance) {
                fail("\(instance) is none of \(values.map(\.description).joined(separator: ", "))")
            }
        }
        if let constant = schema["const"], constant != instance {
            fail("\(instance) where \(constant) is expected")
        }
        if case .object(let members) = instance {
            checkObject(members, schema, path: path, into: &result)
        }
        if case .array(let items) = instance, let itemSchema = schema["items"] {
            for (index, item) in items.enumerated() {
                check(item, itemSchema, path: "\(path)[\(index)]", references: 0, into: &result)
            }
        }
        for keyword in ["oneOf", "anyOf"] {
            guard let alternatives = schema[keyword] else { continue }
            guard let branches = alternatives.arrayValue, !branches.isEmpty else {
                fail("the schema's \(keyword) is not a list of schemas")
                continue
            }
            let outcomes = branches.map { branch in
                var inner = SchemaValidation()
                check(instance, branch, path: path, references: references, into: &inner)
                return inner
            }
            let matched = outcomes.filter(\.isValid)
            if matched.isEmpty {
                let nearest = outcomes.enumerated().min { $0.element.violations.count < $1.element.violations.count }!
                fail(
                    "matches none of the \(branches.count) alternatives of \(keyword); the nearest, alternative "
                        + "\(nearest.offset + 1), because: "
                        + nearest.element.violations.map(\.description).joined(separator: "; "))
            } else if keyword == "oneOf" && matched.count > 1 {
                let which = outcomes.indices.filter { outcomes[$0].isValid }.map { String($0 + 1) }
                fail("matches \(matched.count) alternatives of oneOf (\(which.joined(separator: ", "))), not one")
            } else {
                for outcome in matched { result.definitions.formUnion(outcome.definitions) }
            }
        }
    }

    private func checkObject(
        _ members: [JSONValue.Member], _ schema: JSONValue, path: String, into result: inout SchemaValidation
    ) {
        let properties = schema["properties"]
        if let required = schema["required"] {
            for key in required.arrayValue?.compactMap(\.stringValue) ?? []
            where !members.contains(where: { $0.key == key }) {
                result.violations.append(SchemaViolation(path: path, message: "the required key \"\(key)\" is missing"))
            }
        }
        let additional = schema["additionalProperties"]
        for member in members {
            let here = Self.path(path, key: member.key)
            if let propertySchema = properties?[member.key] {
                check(member.value, propertySchema, path: here, references: 0, into: &result)
            } else if let additional {
                if additional == .bool(false) {
                    result.violations.append(SchemaViolation(path: here, message: "a key the schema does not allow"))
                } else {
                    check(member.value, additional, path: here, references: 0, into: &result)
                }
            }
        }
    }
}
