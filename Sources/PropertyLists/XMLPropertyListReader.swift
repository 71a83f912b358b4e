import CXMLShim

/// Reads Apple's XML property list format through libxml2, safely: no
/// network, no entities, no DTD loading, an iterative walk with a depth limit.
enum XMLPropertyListReader {
    private enum ContainerKind { case array, dictionary }

    private struct Frame {
        var kind: ContainerKind
        var line: Int
        var cursor: OpaquePointer?
        var items: [PropertyList] = []
        var entries: [PropertyList.Entry] = []
        var pendingKey: (key: String, line: Int)?
        var keys: Set<String> = []
    }

    static func read(_ bytes: [UInt8], limits: PropertyListLimits) throws(PropertyListError) -> PropertyList {
        var message = [CChar](repeating: 0, count: 512)
        var line = 0
        var handle: OpaquePointer?
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                uti_xml_parse(chars.baseAddress, chars.count, &handle, &message, message.count, &line)
            }
        }
        guard status == UTI_XML_OK, let document = handle else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw PropertyListError(code(of: status), text, at: line > 0 ? .line(line) : .unknown)
        }
        defer { uti_xml_document_free(document) }

        guard let root = uti_xml_root(document) else {
            throw PropertyListError(.malformed, "document has no root element")
        }
        let rootLine = uti_xml_line(root)
        guard name(of: root) == "plist" else {
            throw PropertyListError(
                .malformed, "root element is <\(name(of: root))>, expected <plist>", at: .line(rootLine))
        }
        if uti_xml_has_stray_text(root) != 0 {
            throw PropertyListError(.malformed, "text outside a value in <plist>", at: .line(rootLine))
        }
        guard let top = uti_xml_first_child(root) else {
            throw PropertyListError(.malformed, "<plist> holds no value", at: .line(rootLine))
        }
        if let extra = uti_xml_next_sibling(top) {
            throw PropertyListError(.malformed, "<plist> holds more than one value", at: .line(uti_xml_line(extra)))
        }
        return try convert(top, limits: limits)
    }

    /// The code of a parse that failed with `status`.
    static func code(of status: uti_xml_status) -> PropertyListError.Code {
        switch status {
        case UTI_XML_ENTITY_DECLARED: .unsupported
        case UTI_XML_TOO_LARGE, UTI_XML_TOO_DEEP: .limitExceeded
        case UTI_XML_OUT_OF_MEMORY: .outOfMemory
        default: .malformed
        }
    }

    private static func name(of element: OpaquePointer) -> String {
        String(cString: uti_xml_name(element))
    }

    private static func text(of element: OpaquePointer) throws(PropertyListError) -> String {
        var pointer: UnsafeMutablePointer<CChar>?
        var length = 0
        let status = uti_xml_text(element, &pointer, &length)
        defer { uti_xml_string_free(pointer) }
        switch status {
        case UTI_XML_TEXT_OK:
            guard let pointer else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        case UTI_XML_TEXT_HAS_ELEMENT:
            throw PropertyListError(
                .malformed, "<\(name(of: element))> must hold text only", at: .line(uti_xml_line(element)))
        case UTI_XML_TEXT_HAS_ENTITY:
            throw PropertyListError(
                .unsupported, "entity references are not accepted", at: .line(uti_xml_line(element)))
        default:
            throw PropertyListError(.outOfMemory, "out of memory", at: .line(uti_xml_line(element)))
        }
    }

    /// Walks the value tree below `top` with an explicit stack.
    private static func convert(
        _ top: OpaquePointer, limits: PropertyListLimits
    ) throws(PropertyListError) -> PropertyList {
        var stack: [Frame] = []
        var objects = 0

        // Returns the finished value, or pushes a frame for a container.
        func begin(_ element: OpaquePointer) throws(PropertyListError) -> PropertyList? {
            objects += 1
            if objects > limits.maximumObjects {
                throw PropertyListError(
                    .limitExceeded, "more than \(limits.maximumObjects) objects", at: .line(uti_xml_line(element)))
            }
            let line = uti_xml_line(element)
            let tag = name(of: element)
            switch tag {
            case "array", "dict":
                if stack.count >= limits.maximumDepth {
                    throw PropertyListError(
                        .limitExceeded, "nesting deeper than \(limits.maximumDepth)", at: .line(line))
                }
                if uti_xml_has_stray_text(element) != 0 {
                    throw PropertyListError(.malformed, "text outside a value in <\(tag)>", at: .line(line))
                }
                stack.append(
                    Frame(kind: tag == "array" ? .array : .dictionary, line: line, cursor: uti_xml_first_child(element))
                )
                return nil
            default:
                return try leaf(element, tag: tag, line: line)
            }
        }

        if let value = try begin(top) { return value }
        while true {
            let index = stack.count - 1
            if let child = stack[index].cursor {
                stack[index].cursor = uti_xml_next_sibling(child)
                if stack[index].kind == .dictionary && stack[index].pendingKey == nil {
                    let childLine = uti_xml_line(child)
                    guard name(of: child) == "key" else {
                        throw PropertyListError(
                            .malformed, "expected <key> in <dict>, found <\(name(of: child))>", at: .line(childLine))
                    }
                    let key = try text(of: child)
                    guard stack[index].keys.insert(key).inserted else {
                        throw PropertyListError(.malformed, "duplicate key \"\(key)\" in <dict>", at: .line(childLine))
                    }
                    stack[index].pendingKey = (key, childLine)
                    continue
                }
                if let value = try begin(child) {
                    add(value, to: &stack[index])
                }
                continue
            }
            // The container at the top of the stack is complete.
            let frame = stack.removeLast()
            if let pending = frame.pendingKey {
                throw PropertyListError(.malformed, "key \"\(pending.key)\" has no value", at: .line(pending.line))
            }
            let value = PropertyList(
                frame.kind == .array ? .array(frame.items) : .dictionary(frame.entries), at: .line(frame.line))
            if stack.isEmpty { return value }
            add(value, to: &stack[stack.count - 1])
        }
    }

    private static func add(_ value: PropertyList, to frame: inout Frame) {
        if frame.kind == .array {
            frame.items.append(value)
        } else if let pending = frame.pendingKey {
            frame.entries.append(PropertyList.Entry(key: pending.key, value: value))
            frame.pendingKey = nil
        }
    }

    private static func leaf(_ element: OpaquePointer, tag: String, line: Int) throws(PropertyListError) -> PropertyList
    {
        let position = SourcePosition.line(line)
        switch tag {
        case "string":
            return PropertyList(.string(try text(of: element)), at: position)
        case "true", "false":
            let content = try text(of: element)
            if uti_xml_has_child_elements(element) != 0 || !content.allSatisfy(\.isWhitespace) {
                throw PropertyListError(.malformed, "<\(tag)/> must be empty", at: position)
            }
            return PropertyList(.bool(tag == "true"), at: position)
        case "integer":
            let raw = try text(of: element)
            guard let value = ValueSyntax.integer(raw) else {
                throw PropertyListError(.malformed, "\"\(raw)\" is not a 64-bit integer", at: position)
            }
            return PropertyList(.integer(value), at: position)
        case "real":
            let raw = try text(of: element)
            guard let value = ValueSyntax.real(raw) else {
                throw PropertyListError(.malformed, "\"\(raw)\" is not a real number", at: position)
            }
            return PropertyList(.real(value), at: position)
        case "date":
            let raw = try text(of: element)
            guard let value = ValueSyntax.date(raw) else {
                throw PropertyListError(
                    .malformed, "\"\(raw)\" is not a date of the form YYYY-MM-DDTHH:MM:SSZ", at: position)
            }
            return PropertyList(.date(value), at: position)
        case "data":
            let raw = try text(of: element)
            guard let value = ValueSyntax.base64(raw) else {
                throw PropertyListError(.malformed, "<data> is not valid base64", at: position)
            }
            return PropertyList(.data(value), at: position)
        case "key":
            throw PropertyListError(.malformed, "<key> outside a <dict>", at: position)
        default:
            throw PropertyListError(.malformed, "unknown element <\(tag)>", at: position)
        }
    }
}
