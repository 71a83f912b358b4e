// Gives every test process a home of its own before any test runs: HOME and
// the XDG folders a user's configuration, data, state and cache live in
// point into a new temporary folder, which is removed when the process
// exits. So no test reads the user's own configuration or cache, or leaves
// anything in them, whatever the test asks (the process registry, app
// bundles, mimeapps.list). XDG_DATA_DIRS and XDG_CONFIG_DIRS, the system's
// folders (README's set-up), are left as they are. This runs as the bundle
// is loaded, before any thread is started, so setting variables is safe.
#define _GNU_SOURCE
#include "TestEnvironment.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char home[4096];
static pid_t owner;

const char *uti_test_home(void) { return home; }

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *walk) {
    (void)info;
    (void)flag;
    (void)walk;
    remove(path);
    return 0;
}

static void remove_home(void) {
    // Only the process that made it: a child started by fork (an exit test) shares the folder.
    if (home[0] != 0 && getpid() == owner) nftw(home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

__attribute__((constructor)) static void isolate_test_process(void) {
    const char *inherited = getenv("UTI_TEST_HOME");
    if (inherited != NULL && inherited[0] != 0) {
        // A child test process (an exit test) keeps its parent's folders.
        snprintf(home, sizeof home, "%s", inherited);
        return;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(home, sizeof home, "%s/uti-test-home-XXXXXX", tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
    if (mkdtemp(home) == NULL) {
        home[0] = 0;
        return;
    }
    owner = getpid();
    static const char *const folders[][2] = {
        {"XDG_CONFIG_HOME", "config"},
        {"XDG_DATA_HOME", "data"},
        {"XDG_STATE_HOME", "state"},
        {"XDG_CACHE_HOME", "cache"},
    };
    char path[4200];
    for (size_t i = 0; i < sizeof folders / sizeof folders[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", home, folders[i][1]);
        mkdir(path, 0700);
        setenv(folders[i][0], path, 1);
    }
    setenv("HOME", home, 1);
    setenv("UTI_TEST_HOME", home, 1);
    // The compiled registry and declarations of the user are never read.
    unsetenv("UTI_CACHE_DIR");
    unsetenv("UTI_DECLARATIONS");
    unsetenv("UTI_MIME_TYPES");
    atexit(remove_home);
}
