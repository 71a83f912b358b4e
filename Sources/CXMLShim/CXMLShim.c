#include "CXMLShim.h"

// Keep ICU's headers out of this translation unit: nothing here needs them.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct uti_xml_document { xmlDocPtr doc; };

typedef struct {
    int entity_declared;
    long entity_line;
    /// The first error libxml2 raised outside the parser context: bytes
    /// that are not valid in the document's encoding.
    int encoding_failed;
    char encoding_message[160];
} guard_state;

/// SAX hook: any entity declaration stops the parser before it can be used.
static void refuse_entity(void *context, const xmlChar *name, int type,
                          const xmlChar *public_id, const xmlChar *system_id,
                          xmlChar *content) {
    (void)name; (void)type; (void)public_id; (void)system_id; (void)content;
    xmlParserCtxtPtr ctxt = (xmlParserCtxtPtr)context;
    guard_state *state = (guard_state *)ctxt->_private;
    if (state != NULL && !state->entity_declared) {
        state->entity_declared = 1;
        state->entity_line = xmlSAX2GetLineNumber(ctxt);
    }
    xmlStopParser(ctxt);
}

static void silent_error(void *context, const char *message, ...) {
    (void)context; (void)message;
}

static void silent_structured(void *context, xmlErrorPtr error) {
    (void)context; (void)error;
}

static void copy_message(char *message, size_t capacity, const char *text) {
    if (message == NULL || capacity == 0) return;
    snprintf(message, capacity, "%s", text ? text : "unknown error");
    // libxml2 messages end with a newline, and some hold one more before
    // the bytes they quote: a report is one line.
    size_t n = strlen(message);
    while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == '\r')) message[--n] = 0;
    for (size_t i = 0; i < n; i++) {
        if (message[i] == '\n' || message[i] == '\r') message[i] = ' ';
    }
}

/// Errors raised without a parser context (encoding conversion) would
/// otherwise be printed on stderr; the first is kept for the report.
static void record_global_error(void *context, xmlErrorPtr error) {
    guard_state *state = (guard_state *)context;
    if (state == NULL || error == NULL || state->encoding_failed) return;
    if (error->domain == XML_FROM_I18N) {
        state->encoding_failed = 1;
        copy_message(state->encoding_message, sizeof state->encoding_message, error->message);
    }
}

uti_xml_status uti_xml_parse(const char *bytes, size_t length,
                             uti_xml_document **out,
                             char *message, size_t message_capacity,
                             long *line) {
    *out = NULL;
    if (line) *line = 0;
    if (length > (size_t)INT_MAX) {
        copy_message(message, message_capacity, "document too large");
        return UTI_XML_TOO_LARGE;
    }
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (ctxt == NULL) {
        copy_message(message, message_capacity, "out of memory");
        return UTI_XML_OUT_OF_MEMORY;
    }
    guard_state state = {0, 0};
    ctxt->_private = &state;
    ctxt->sax->entityDecl = refuse_entity;
    ctxt->sax->warning = silent_error;
    ctxt->sax->error = silent_error;
    ctxt->sax->fatalError = silent_error;
    ctxt->sax->serror = silent_structured;
    ctxt->vctxt.error = silent_error;
    ctxt->vctxt.warning = silent_error;

    // Only what is safe: no network, big line numbers. Never
    // NOENT, DTDLOAD, HUGE or RECOVER.
    int options = XML_PARSE_NONET | XML_PARSE_BIG_LINES |
                  XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA;
    xmlSetStructuredErrorFunc(&state, record_global_error);
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, bytes, (int)length, NULL, NULL, options);
    xmlSetStructuredErrorFunc(NULL, NULL);

    if (state.entity_declared) {
        if (doc) xmlFreeDoc(doc);
        copy_message(message, message_capacity,
                     "the document declares an entity; entity declarations are not accepted");
        if (line) *line = state.entity_line;
        xmlFreeParserCtxt(ctxt);
        return UTI_XML_ENTITY_DECLARED;
    }
    if (doc == NULL || !ctxt->wellFormed) {
        xmlErrorPtr error = xmlCtxtGetLastError(ctxt);
        int too_deep = 0;
        if (state.encoding_failed) {
            char text[256];
            snprintf(text, sizeof text, "bytes not valid in the document's encoding (%s)", state.encoding_message);
            copy_message(message, message_capacity, text);
        } else if (error && error->message && strncmp(error->message, "Excessive depth in document", 27) == 0) {
            char text[64];
            snprintf(text, sizeof text, "elements nested more than %u deep", xmlParserMaxDepth);
            copy_message(message, message_capacity, text);
            too_deep = 1;
        } else {
            copy_message(message, message_capacity, error ? error->message : "not well-formed XML");
        }
        if (line) *line = error ? error->line : 0;
        if (doc) xmlFreeDoc(doc);
        int memory = error && error->code == XML_ERR_NO_MEMORY;
        xmlFreeParserCtxt(ctxt);
        return memory ? UTI_XML_OUT_OF_MEMORY : too_deep ? UTI_XML_TOO_DEEP : UTI_XML_MALFORMED;
    }
    xmlFreeParserCtxt(ctxt);

    uti_xml_document *result = malloc(sizeof *result);
    if (result == NULL) {
        xmlFreeDoc(doc);
        copy_message(message, message_capacity, "out of memory");
        return UTI_XML_OUT_OF_MEMORY;
    }
    result->doc = doc;
    *out = result;
    return UTI_XML_OK;
}

void uti_xml_document_free(uti_xml_document *document) {
    if (document == NULL) return;
    xmlFreeDoc(document->doc);
    free(document);
}

static const uti_xml_element *element_from(xmlNodePtr node) {
    while (node != NULL && node->type != XML_ELEMENT_NODE) node = node->next;
    return (const uti_xml_element *)node;
}

const uti_xml_element *uti_xml_root(const uti_xml_document *document) {
    return (const uti_xml_element *)xmlDocGetRootElement(document->doc);
}

const uti_xml_element *uti_xml_first_child(const uti_xml_element *element) {
    return element_from(((xmlNodePtr)element)->children);
}

const uti_xml_element *uti_xml_next_sibling(const uti_xml_element *element) {
    return element_from(((xmlNodePtr)element)->next);
}

const char *uti_xml_name(const uti_xml_element *element) {
    return (const char *)((xmlNodePtr)element)->name;
}

long uti_xml_line(const uti_xml_element *element) {
    return xmlGetLineNo((xmlNodePtr)element);
}

int uti_xml_has_child_elements(const uti_xml_element *element) {
    return uti_xml_first_child(element) != NULL;
}

uti_xml_text_status uti_xml_text(const uti_xml_element *element,
                                 char **out, size_t *length) {
    *out = NULL;
    *length = 0;
    size_t total = 0;
    for (xmlNodePtr child = ((xmlNodePtr)element)->children; child; child = child->next) {
        switch (child->type) {
        case XML_TEXT_NODE:
        case XML_CDATA_SECTION_NODE:
            if (child->content) total += strlen((const char *)child->content);
            break;
        case XML_ELEMENT_NODE:
            return UTI_XML_TEXT_HAS_ELEMENT;
        case XML_ENTITY_REF_NODE:
        case XML_ENTITY_NODE:
            return UTI_XML_TEXT_HAS_ENTITY;
        default:
            break;
        }
    }
    char *buffer = malloc(total + 1);
    if (buffer == NULL) return UTI_XML_TEXT_OUT_OF_MEMORY;
    size_t at = 0;
    for (xmlNodePtr child = ((xmlNodePtr)element)->children; child; child = child->next) {
        if ((child->type == XML_TEXT_NODE || child->type == XML_CDATA_SECTION_NODE) && child->content) {
            size_t n = strlen((const char *)child->content);
            memcpy(buffer + at, child->content, n);
            at += n;
        }
    }
    buffer[at] = 0;
    *out = buffer;
    *length = at;
    return UTI_XML_TEXT_OK;
}

void uti_xml_string_free(char *string) { free(string); }

int uti_xml_has_stray_text(const uti_xml_element *element) {
    for (xmlNodePtr child = ((xmlNodePtr)element)->children; child; child = child->next) {
        if (child->type == XML_ENTITY_REF_NODE || child->type == XML_ENTITY_NODE) return 1;
        if ((child->type == XML_TEXT_NODE || child->type == XML_CDATA_SECTION_NODE) && child->content) {
            for (const xmlChar *c = child->content; *c; c++) {
                if (*c != ' ' && *c != '\t' && *c != '\n' && *c != '\r') return 1;
            }
        }
    }
    return 0;
}

static char *copy_xml_string(xmlChar *value) {
    if (value == NULL) return NULL;
    size_t n = strlen((const char *)value);
    char *copy = malloc(n + 1);
    if (copy != NULL) memcpy(copy, value, n + 1);
    xmlFree(value);
    return copy;
}

char *uti_xml_attribute(const uti_xml_element *element, const char *name) {
    return copy_xml_string(xmlGetNoNsProp((xmlNodePtr)element, (const xmlChar *)name));
}

char *uti_xml_lang(const uti_xml_element *element) {
    return copy_xml_string(xmlGetNsProp((xmlNodePtr)element, (const xmlChar *)"lang", XML_XML_NAMESPACE));
}

const char *uti_xml_namespace(const uti_xml_element *element) {
    xmlNsPtr ns = ((xmlNodePtr)element)->ns;
    return ns ? (const char *)ns->href : NULL;
}
