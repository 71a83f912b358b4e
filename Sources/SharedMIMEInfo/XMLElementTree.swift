import CXMLShim

/// A parsed XML document held through the libxml2 shim: no network, no
/// entities, no DTD loading.
final class XMLElementTree {
    struct ParseError: Error {
        var line: Int
        var message: String
    }

    private let document: OpaquePointer

    init(bytes: [UInt8]) throws(ParseError) {
        var out: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        var line = 0
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                uti_xml_parse(chars.baseAddress, chars.count, &out, &message, message.count, &line)
            }
        }
        guard status == UTI_XML_OK, let out else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ParseError(line: line, message: text)
        }
        document = out
    }

    deinit { uti_xml_document_free(document) }

    var root: Element? { uti_xml_root(document).map { Element(node: $0, tree: self) } }

    /// An element; valid while its tree lives (it keeps the tree alive).
    struct Element {
        let node: OpaquePointer
        let tree: XMLElementTree

        var name: String { String(cString: uti_xml_name(node)) }
        var line: Int { uti_xml_line(node) }
        var namespace: String? { uti_xml_namespace(node).map { String(cString: $0) } }

        var children: [Element] {
            var result: [Element] = []
            var child = uti_xml_first_child(node)
            while let current = child {
                result.append(Element(node: current, tree: tree))
                child = uti_xml_next_sibling(current)
            }
            return result
        }

        func attribute(_ name: String) -> String? {
            guard let value = uti_xml_attribute(node, name) else { return nil }
            defer { uti_xml_string_free(value) }
            return String(cString: value)
        }

        var language: String? {
            guard let value = uti_xml_lang(node) else { return nil }
            defer { uti_xml_string_free(value) }
            return String(cString: value)
        }

        /// The element's text, or nil when it holds elements or entities.
        var text: String? {
            var out: UnsafeMutablePointer<CChar>?
            var length = 0
            guard uti_xml_text(node, &out, &length) == UTI_XML_TEXT_OK, let out else { return nil }
            defer { uti_xml_string_free(out) }
            return String(cString: out)
        }
    }
}
