/*
 * Reference answers from GIO for the comparison scripts.
 *
 *   gio-content-type names   < names    one file name per line:
 *                                       g_content_type_guess(name, NULL, 0)
 *   gio-content-type files   < paths    one path per line: the
 *                                       standard::content-type of
 *                                       g_file_query_info (what `gio info` shows)
 *   gio-content-type schemes < schemes  one URL scheme per line:
 *                                       g_app_info_get_default_for_uri_scheme
 *                                       and g_app_info_get_all_for_type of
 *                                       x-scheme-handler/SCHEME
 *
 * Prints "<answer>\t<certain|uncertain>\t<input>" per line ("files" mode
 * prints "-" for certainty, "ERROR" for files GIO cannot read; "schemes"
 * prints "<default or ->\t<ids, ;-separated>\t<scheme>").
 */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "names") != 0 && strcmp(argv[1], "files") != 0 && strcmp(argv[1], "schemes") != 0)) {
        fprintf(stderr, "usage: %s names|files|schemes < input\n", argv[0]);
        return 2;
    }
    int names = strcmp(argv[1], "names") == 0;
    int schemes = strcmp(argv[1], "schemes") == 0;
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, stdin)) > 0) {
        if (line[length - 1] == '\n') line[--length] = 0;
        if (length == 0) continue;
        if (schemes) {
            GAppInfo *best = g_app_info_get_default_for_uri_scheme(line);
            gchar *lower = g_ascii_strdown(line, -1);
            gchar *type = g_strconcat("x-scheme-handler/", lower, NULL);
            GList *all = g_app_info_get_all_for_type(type);
            printf("%s\t", best ? g_app_info_get_id(best) : "-");
            for (GList *item = all; item; item = item->next) {
                printf("%s%s", item == all ? "" : ";", g_app_info_get_id(G_APP_INFO(item->data)));
            }
            printf("\t%s\n", line);
            g_list_free_full(all, g_object_unref);
            g_free(type);
            g_free(lower);
            if (best) g_object_unref(best);
        } else if (names) {
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
