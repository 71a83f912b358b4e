import SystemBase

/// A property list value, as Apple's XML and binary formats carry it.
///
/// Every value remembers where it stood in its source: the line of an XML
/// element, or the byte offset of a binary object.
public struct PropertyList: Sendable, Equatable {
    /// The kinds of value a property list holds, each with its content.
    public enum Value: Sendable, Equatable {
        /// Text: `<string>`, or an ASCII or UTF-16 string object.
        case string(String)
        /// A signed integer of at most 64 bits: `<integer>`, decimal or `0x` hexadecimal in XML.
        case integer(Int64)
        /// A floating-point number: `<real>`.
        case real(Double)
        /// A Boolean: `<true/>` or `<false/>`.
        case bool(Bool)
        /// Seconds since 2001-01-01T00:00:00Z, as Apple counts them.
        case date(Double)
        /// Raw bytes: `<data>`, base64 in XML.
        case data([UInt8])
        /// Values in order: `<array>`.
        case array([PropertyList])
        /// String keys and their values in document order, no key twice: `<dict>`.
        case dictionary([Entry])
    }

    /// One key and its value in a dictionary, in document order.
    public struct Entry: Sendable, Equatable {
        /// The key: a `<key>` in XML, a string object in the binary format.
        public var key: String
        /// The value the key names.
        public var value: PropertyList
        /// An entry of `key` and `value`.
        public init(key: String, value: PropertyList) {
            self.key = key
            self.value = value
        }
    }

    /// The value's kind and content.
    public var value: Value
    /// Where the value stood: the line of its XML element, or the byte offset of its binary object.
    public var location: SourcePosition

    /// A value that stood at `location` in its source (`.unknown` when it has none).
    public init(_ value: Value, at location: SourcePosition = .unknown) {
        self.value = value
        self.location = location
    }

    /// The value for `key` when this is a dictionary.
    public subscript(key: String) -> PropertyList? {
        guard case .dictionary(let entries) = value else { return nil }
        return entries.first { $0.key == key }?.value
    }

    /// The text when this is a string, otherwise nil.
    public var stringValue: String? {
        if case .string(let s) = value { return s }
        return nil
    }

    /// The elements when this is an array, otherwise nil.
    public var arrayValue: [PropertyList]? {
        if case .array(let a) = value { return a }
        return nil
    }

    /// The entries, in document order, when this is a dictionary, otherwise nil.
    public var dictionaryValue: [Entry]? {
        if case .dictionary(let d) = value { return d }
        return nil
    }

    /// The Boolean when this is one, otherwise nil.
    public var boolValue: Bool? {
        if case .bool(let b) = value { return b }
        return nil
    }

    /// The kind with its article, for messages: "an integer", "a dict".
    public var kindPhrase: String {
        ("aeiou".contains(kindName.first ?? "x") ? "an " : "a ") + kindName
    }

    /// The name of the value's kind, as the XML format spells it.
    public var kindName: String {
        switch value {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .bool: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dict"
        }
    }
}

/// Where something stands in a source file (defined in `SystemBase`, which
/// every module's diagnostics share).
public typealias SourcePosition = SystemBase.SourcePosition

/// A property list that could not be read, and where.
public struct PropertyListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is, for a caller to switch on.
    public enum Code: Sendable, Hashable {
        /// Not a property list as the format defines it: XML that is not
        /// well formed or not a `<plist>`, a damaged binary trailer, a
        /// reference out of range, a duplicate key.
        case malformed
        /// Over one of the `PropertyListLimits` (size, nesting, objects or
        /// expanded bytes), or nested deeper than the XML parser goes.
        case limitExceeded
        /// Valid in its format, but not read here: entities in XML, and
        /// binary objects of kinds, sizes or sharing this reader refuses.
        case unsupported
        /// Memory ran out while the document was parsed.
        case outOfMemory
    }

    /// What kind of problem it is.
    public var code: Code
    /// What is wrong, without the position.
    public var message: String
    /// The line (XML) or byte offset (binary) of the problem, or `.unknown`.
    public var position: SourcePosition

    /// An error saying `message` about the input at `position`, of code
    /// `malformed`.
    public init(_ message: String, at position: SourcePosition = .unknown) {
        self.init(.malformed, message, at: position)
    }

    /// An error of `code` saying `message` about the input at `position`.
    public init(_ code: Code, _ message: String, at position: SourcePosition = .unknown) {
        self.code = code
        self.message = message
        self.position = position
    }

    /// The message, after `line N: ` or `offset N: ` when the position is known.
    public var description: String {
        switch position {
        case .unknown: message
        case .line(let n): "line \(n): \(message)"
        case .offset(let n): "offset \(n): \(message)"
        }
    }
}

/// Limits that keep a hostile property list from using unbounded resources.
public struct PropertyListLimits: Sendable {
    /// Largest input accepted, in bytes.
    public var maximumBytes: Int
    /// Deepest nesting of arrays and dictionaries.
    public var maximumDepth: Int
    /// Most objects (values of any kind) in one document.
    public var maximumObjects: Int
    /// Most bytes of strings and data the values hold together once read. A
    /// binary property list may name one object from many places, so a
    /// small file can stand for far more than its size.
    public var maximumExpandedBytes: Int

    /// Limits with the given values; the defaults are those of ``standard``.
    public init(
        maximumBytes: Int = 64 << 20, maximumDepth: Int = 128, maximumObjects: Int = 4_000_000,
        maximumExpandedBytes: Int = 64 << 20
    ) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumObjects = maximumObjects
        self.maximumExpandedBytes = maximumExpandedBytes
    }

    /// 64 MiB of input, nesting 128 deep, 4,000,000 objects and 64 MiB of strings and data.
    public static let standard = PropertyListLimits()
}

extension PropertyList {
    /// Reads a property list in Apple's XML or binary (`bplist00`) format.
    public static func parse(
        _ bytes: [UInt8], limits: PropertyListLimits = .standard
    ) throws(PropertyListError) -> PropertyList {
        if bytes.count > limits.maximumBytes {
            throw PropertyListError(
                .limitExceeded, "property list is \(bytes.count) bytes; the limit is \(limits.maximumBytes)")
        }
        if BinaryPropertyListReader.isBinary(bytes) {
            var reader = try BinaryPropertyListReader(bytes, limits: limits)
            return try reader.read()
        }
        return try XMLPropertyListReader.read(bytes, limits: limits)
    }
}
