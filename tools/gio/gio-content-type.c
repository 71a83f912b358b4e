/*
 * Reference answers from GIO for the comparison scripts.
 *
 *   gio-content-type names   < names    one file name per line:
 *                                       g_content_type_guess(name, NULL, 0)
 *   gio-content-type files   < paths    one path per line: the
 *                                       standard::content-type of
 *                                       g_file_query_info (what `gio info` shows)
 *
 * Prints "<answer>\t<certain|uncertain>\t<input>" per line ("files" mode
 * prints "-" for certainty, "ERROR" for files GIO cannot read).
 */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "names") != 0 && strcmp(argv[1], "files") != 0)) {
        fprintf(stderr, "usage: %s names|files < input\n", argv[0]);
        return 2;
    }
    int names = strcmp(argv[1], "names") == 0;
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, stdin)) > 0) {
        if (line[length - 1] == '\n') line[--length] = 0;
        if (length == 0) continue;
        if (names) {
            gboolean uncertain = FALSE;
            gchar *type = g_content_type_guess(line, NULL, 0, &uncertain);
            printf("%s\t%s\t%s\n", type, uncertain ? "uncertain" : "certain", line);
            g_free(type);
        } else {
            GFile *file = g_file_new_for_path(line);
            GFileInfo *info = g_file_query_info(file, G_FILE_ATTRIBUTE_STANDARD_CONTENT_TYPE,
                                                G_FILE_QUERY_INFO_NONE, NULL, NULL);
            printf("%s\t-\t%s\n", info ? g_file_info_get_content_type(info) : "ERROR", line);
            if (info) g_object_unref(info);
            g_object_unref(file);
        }
    }
    free(line);
    return 0;
}
