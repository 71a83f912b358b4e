/*
 * GIO's rates in one process, for tools/bench/run-benchmarks.py.
 *
 *   gio-bench guess NAME            prints g_content_type_guess(NAME, NULL, 0)
 *   gio-bench rates NAMES MIMES     prints "name_guesses_per_s R" and
 *                                   "is_a_checks_per_s R" (a second of each)
 */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static char **read_lines(const char *path, int *count) {
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "gio-bench: cannot open %s\n", path); exit(2); }
    int capacity = 1024, n = 0;
    char **lines = malloc(capacity * sizeof *lines);
    char *line = NULL;
    size_t size = 0;
    ssize_t length;
    while ((length = getline(&line, &size, f)) > 0) {
        if (line[length - 1] == '\n') line[--length] = 0;
        if (length == 0) continue;
        if (n == capacity) lines = realloc(lines, (capacity *= 2) * sizeof *lines);
        lines[n++] = strdup(line);
    }
    free(line);
    fclose(f);
    *count = n;
    return lines;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "guess") == 0) {
        gboolean uncertain;
        char *type = g_content_type_guess(argv[2], NULL, 0, &uncertain);
        puts(type);
        g_free(type);
        return 0;
    }
    if (argc != 4 || strcmp(argv[1], "rates") != 0) {
        fprintf(stderr, "usage: gio-bench guess NAME | gio-bench rates NAMES MIMES\n");
        return 2;
    }
    int names_count, mimes_count;
    char **names = read_lines(argv[2], &names_count);
    char **mimes = read_lines(argv[3], &mimes_count);
    long calls = 0, hits = 0;
    double start = now(), elapsed;
    do {
        for (int i = 0; i < names_count; i++) {
            gboolean uncertain;
            char *type = g_content_type_guess(names[i], NULL, 0, &uncertain);
            hits += !uncertain;
            g_free(type);
        }
        calls += names_count;
        elapsed = now() - start;
    } while (elapsed < 1.0);
    printf("name_guesses_per_s %.0f\n", calls / elapsed);
    const char *bases[] = { "image/*", "text/plain", "application/octet-stream", "application/x-archive", "video/*", "audio/*" };
    calls = 0;
    start = now();
    do {
        for (int i = 0; i < mimes_count; i++) hits += g_content_type_is_a(mimes[i], bases[i % 6]);
        calls += mimes_count;
        elapsed = now() - start;
    } while (elapsed < 1.0);
    printf("is_a_checks_per_s %.0f\n", calls / elapsed);
    return hits == -1;
}
