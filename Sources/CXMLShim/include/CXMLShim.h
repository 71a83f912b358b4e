#ifndef CXMLSHIM_H
#define CXMLSHIM_H

#include <stddef.h>

/// A parsed XML document. Opaque: callers never see libxml2's types.
typedef struct uti_xml_document uti_xml_document;
/// An element of a parsed document, valid while its document lives.
typedef struct uti_xml_element uti_xml_element;

/// Why a parse failed.
typedef enum {
    UTI_XML_OK = 0,
    UTI_XML_MALFORMED = 1,        ///< not well-formed XML
    UTI_XML_ENTITY_DECLARED = 2,  ///< the document declares entities (refused)
    UTI_XML_TOO_LARGE = 3,        ///< input larger than the parser accepts
    UTI_XML_OUT_OF_MEMORY = 4,
    UTI_XML_TOO_DEEP = 5          ///< elements nested deeper than the parser accepts
} uti_xml_status;

/// Parses `length` bytes as XML without network access, entity substitution,
/// DTD loading or recovery. A document that declares any entity is refused.
/// On failure `*out` is NULL, `message` holds a description and `*line` the
/// line the parser stopped at (0 when unknown).
uti_xml_status uti_xml_parse(const char *bytes, size_t length,
                             uti_xml_document **out,
                             char *message, size_t message_capacity,
                             long *line);

void uti_xml_document_free(uti_xml_document *document);

/// The root element, or NULL for a document without one.
const uti_xml_element *uti_xml_root(const uti_xml_document *document);

/// First child element (text, comments and processing instructions skipped).
const uti_xml_element *uti_xml_first_child(const uti_xml_element *element);
/// Next sibling element.
const uti_xml_element *uti_xml_next_sibling(const uti_xml_element *element);
/// The element's local name (UTF-8, owned by the document).
const char *uti_xml_name(const uti_xml_element *element);
/// The line the element starts on.
long uti_xml_line(const uti_xml_element *element);

/// Result of reading an element's character data.
typedef enum {
    UTI_XML_TEXT_OK = 0,
    UTI_XML_TEXT_HAS_ELEMENT = 1,  ///< an element sits inside the text
    UTI_XML_TEXT_HAS_ENTITY = 2,   ///< an unresolved entity reference
    UTI_XML_TEXT_OUT_OF_MEMORY = 3
} uti_xml_text_status;

/// Concatenates the text and CDATA children of `element` into a newly
/// allocated UTF-8 string (`*out`, free with `uti_xml_string_free`), its
/// byte count in `*length`. Comments are skipped.
uti_xml_text_status uti_xml_text(const uti_xml_element *element,
                                 char **out, size_t *length);

void uti_xml_string_free(char *string);

/// True when the element has at least one child element.
int uti_xml_has_child_elements(const uti_xml_element *element);

/// True when the element holds non-whitespace text or an entity reference
/// beside its child elements (not allowed in a container).
int uti_xml_has_stray_text(const uti_xml_element *element);

/// The value of the attribute `name` (no namespace) as a newly allocated
/// UTF-8 string (free with `uti_xml_string_free`), or NULL when absent.
char *uti_xml_attribute(const uti_xml_element *element, const char *name);

/// The element's own `xml:lang` attribute (not inherited), newly allocated,
/// or NULL when absent.
char *uti_xml_lang(const uti_xml_element *element);

/// The namespace URI of the element (owned by the document), or NULL.
const char *uti_xml_namespace(const uti_xml_element *element);

#endif
