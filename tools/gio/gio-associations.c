/* Edits the user's mimeapps.list through GIO, for comparison with
 * `uti set-default --add/--remove`.
 * Usage: gio-associations add|remove|default DESKTOP-ID CONTENT-TYPE ...
 * (each triple in turn; the XDG variables name the files). */
#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    for (int i = 1; i + 2 < argc; i += 3) {
        GDesktopAppInfo *info = g_desktop_app_info_new(argv[i + 1]);
        if (info == NULL) {
            fprintf(stderr, "%s: no such desktop entry\n", argv[i + 1]);
            return 2;
        }
        GError *error = NULL;
        gboolean done;
        if (strcmp(argv[i], "add") == 0) {
            done = g_app_info_add_supports_type(G_APP_INFO(info), argv[i + 2], &error);
        } else if (strcmp(argv[i], "remove") == 0) {
            done = g_app_info_remove_supports_type(G_APP_INFO(info), argv[i + 2], &error);
        } else {
            done = g_app_info_set_as_default_for_type(G_APP_INFO(info), argv[i + 2], &error);
        }
        if (!done) {
            fprintf(stderr, "%s %s %s: %s\n", argv[i], argv[i + 1], argv[i + 2], error->message);
            return 1;
        }
        g_object_unref(info);
    }
    return 0;
}
