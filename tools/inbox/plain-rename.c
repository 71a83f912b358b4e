/* The floor for `uti inbox`: renames every entry of DOCUMENTS/Inbox into
 * DOCUMENTS with plain rename(2), in the order readdir gives, and nothing
 * else (no collision handling, no checks, no output). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: plain-rename DOCUMENTS\n");
        return 2;
    }
    int documents = open(argv[1], O_RDONLY | O_DIRECTORY);
    int inbox = documents < 0 ? -1 : openat(documents, "Inbox", O_RDONLY | O_DIRECTORY);
    DIR *dir = inbox < 0 ? NULL : fdopendir(inbox);
    if (!dir) {
        perror(argv[1]);
        return 2;
    }
    struct dirent *entry;
    int moved = 0;
    while ((entry = readdir(dir))) {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, "..")) continue;
        if (renameat(inbox, entry->d_name, documents, entry->d_name) == 0) moved++;
    }
    printf("%d\n", moved);
    return 0;
}
