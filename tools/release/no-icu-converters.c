/*
 * The ICU converter functions Debian's libxml2 calls, for the static release
 * build (tools/build-release.sh), so that ICU is not linked in.
 *
 * libxml2 converts UTF-8, UTF-16, ISO-8859-1 and ASCII itself; for any other
 * encoding it asks glibc's iconv first and ICU only when iconv has no
 * converter. Linking ICU statically costs 35 MB (31 MB of it ICU's data) in a
 * binary that is otherwise 15 MB. Here every converter is absent: ucnv_open
 * fails, so libxml2 reports the document's encoding as unsupported, an error
 * `uti` prints with the file and line. Encodings glibc's iconv converts keep
 * working.
 *
 * Built with ICU's headers, which give each function the versioned name
 * (ucnv_open_72) libxml2 was linked against.
 */
#include <stddef.h>
#include <unicode/ucnv.h>

UConverter *ucnv_open(const char *name, UErrorCode *err) {
    (void)name;
    if (err != NULL && U_SUCCESS(*err)) *err = U_FILE_ACCESS_ERROR;
    return NULL;
}

void ucnv_close(UConverter *converter) {
    (void)converter;
}

void ucnv_setToUCallBack(UConverter *converter, UConverterToUCallback action, const void *context,
                         UConverterToUCallback *oldAction, const void **oldContext, UErrorCode *err) {
    (void)converter; (void)action; (void)context; (void)oldAction; (void)oldContext;
    if (err != NULL && U_SUCCESS(*err)) *err = U_UNSUPPORTED_ERROR;
}

void ucnv_setFromUCallBack(UConverter *converter, UConverterFromUCallback action, const void *context,
                           UConverterFromUCallback *oldAction, const void **oldContext, UErrorCode *err) {
    (void)converter; (void)action; (void)context; (void)oldAction; (void)oldContext;
    if (err != NULL && U_SUCCESS(*err)) *err = U_UNSUPPORTED_ERROR;
}

void ucnv_convertEx(UConverter *targetCnv, UConverter *sourceCnv, char **target, const char *targetLimit,
                    const char **source, const char *sourceLimit, UChar *pivotStart, UChar **pivotSource,
                    UChar **pivotTarget, const UChar *pivotLimit, UBool reset, UBool flush, UErrorCode *pErrorCode) {
    (void)targetCnv; (void)sourceCnv; (void)target; (void)targetLimit; (void)source; (void)sourceLimit;
    (void)pivotStart; (void)pivotSource; (void)pivotTarget; (void)pivotLimit; (void)reset; (void)flush;
    if (pErrorCode != NULL && U_SUCCESS(*pErrorCode)) *pErrorCode = U_UNSUPPORTED_ERROR;
}

void UCNV_TO_U_CALLBACK_STOP(const void *context, UConverterToUnicodeArgs *toUArgs, const char *codeUnits,
                             int32_t length, UConverterCallbackReason reason, UErrorCode *err) {
    (void)context; (void)toUArgs; (void)codeUnits; (void)length; (void)reason; (void)err;
}

void UCNV_FROM_U_CALLBACK_STOP(const void *context, UConverterFromUnicodeArgs *fromUArgs, const UChar *codeUnits,
                               int32_t length, UChar32 codePoint, UConverterCallbackReason reason, UErrorCode *err) {
    (void)context; (void)fromUArgs; (void)codeUnits; (void)length; (void)codePoint; (void)reason; (void)err;
}
