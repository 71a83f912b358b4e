/*
 * Times whole processes the way a shell script starts them.
 *
 *   spawn-timer [-n ROUNDS] [-w WARMUP] -- CMD ARGS... [::: CMD ARGS...]...
 *
 * Runs every command once per round, in turn (interleaved, so a change in
 * machine load touches all of them alike), with standard output and error
 * sent to /dev/null. Each run is posix_spawnp + wait4, timed with
 * CLOCK_MONOTONIC. Leading NAME=VALUE words of a command set those
 * variables for it alone, as env(1) would, without a process of its own.
 * Prints one line per command, tab-separated:
 *   median_us  p10_us  p90_us  max_rss_kib  exit_status  command
 * Exits 1 when a command cannot be started or exits non-zero in any run.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int rounds = 100, warmup = 5, i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc) warmup = atoi(argv[++i]);
        else { fprintf(stderr, "spawn-timer: unknown argument %s\n", argv[i]); return 2; }
    }
    if (i >= argc || rounds < 1) { fprintf(stderr, "usage: spawn-timer [-n ROUNDS] [-w WARMUP] -- CMD... [::: CMD...]\n"); return 2; }
    i++;
    char ***commands = calloc(argc, sizeof *commands);
    int count = 0;
    while (i < argc) {
        commands[count++] = &argv[i];
        while (i < argc && strcmp(argv[i], ":::") != 0) i++;
        if (i < argc) argv[i++] = NULL;
    }
    /* Each command's environment: the leading NAME=VALUE words, then ours. */
    char ***environments = calloc(count, sizeof *environments);
    int inherited = 0;
    while (environ[inherited]) inherited++;
    for (int c = 0; c < count; c++) {
        int n = 0;
        while (commands[c][n] && strchr(commands[c][n], '=') && commands[c][n][0] != '=' && commands[c][n][0] != '/') n++;
        environments[c] = calloc(n + inherited + 1, sizeof(char *));
        for (int k = 0; k < n; k++) environments[c][k] = commands[c][k];
        for (int k = 0, m = n; k < inherited; k++) {
            size_t name = strcspn(environ[k], "=");
            int shadowed = 0;
            for (int j = 0; j < n; j++)
                if (strncmp(commands[c][j], environ[k], name + 1) == 0) shadowed = 1;
            if (!shadowed) environments[c][m++] = environ[k];
        }
        commands[c] += n;
        if (!commands[c][0]) { fprintf(stderr, "spawn-timer: a command has no program\n"); return 2; }
    }
    double **times = calloc(count, sizeof *times);
    long *rss = calloc(count, sizeof *rss);
    int *status = calloc(count, sizeof *status);
    for (int c = 0; c < count; c++) times[c] = calloc(rounds, sizeof(double));

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    int failed = 0;
    for (int r = -warmup; r < rounds; r++) {
        for (int c = 0; c < count; c++) {
            struct timespec start, end;
            struct rusage usage;
            pid_t pid;
            int wstatus = 0;
            clock_gettime(CLOCK_MONOTONIC, &start);
            if (posix_spawnp(&pid, commands[c][0], &actions, NULL, commands[c], environments[c]) != 0) {
                fprintf(stderr, "spawn-timer: cannot start %s\n", commands[c][0]);
                return 1;
            }
            wait4(pid, &wstatus, 0, &usage);
            clock_gettime(CLOCK_MONOTONIC, &end);
            if (r < 0) continue;
            times[c][r] = (end.tv_sec - start.tv_sec) * 1e6 + (end.tv_nsec - start.tv_nsec) / 1e3;
            if (usage.ru_maxrss > rss[c]) rss[c] = usage.ru_maxrss;
            int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
            if (code != 0) { status[c] = code; failed = 1; }
        }
    }
    for (int c = 0; c < count; c++) {
        qsort(times[c], rounds, sizeof(double), compare);
        printf("%.1f\t%.1f\t%.1f\t%ld\t%d\t", times[c][rounds / 2], times[c][rounds / 10], times[c][rounds * 9 / 10], rss[c], status[c]);
        for (char **a = commands[c]; *a; a++) printf(a == commands[c] ? "%s" : " %s", *a);
        printf("\n");
    }
    return failed;
}
