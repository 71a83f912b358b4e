#define _GNU_SOURCE
#include "CLinuxCalls.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

int uti_rename_noreplace(int from_dir, const char *from, int to_dir, const char *to) {
#ifdef RENAME_NOREPLACE
    return renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE);
#else
    return (int)syscall(SYS_renameat2, from_dir, from, to_dir, to, 1u);
#endif
}

int uti_open_unnamed_file(int dir, mode_t mode) {
    return openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
}

int uti_link_open_file(int fd, int to_dir, const char *to) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, path, to_dir, to, AT_SYMLINK_FOLLOW);
}

int uti_has_writer(int fd) {
    /* The lease is released when the caller closes `fd`. */
    if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0) return 0;
    return errno == EAGAIN ? 1 : -1;
}

ssize_t uti_copy_range(int from, int to, size_t length) {
    return copy_file_range(from, NULL, to, NULL, length, 0);
}

int uti_signal_descriptor(const sigset_t *signals) {
    return signalfd(-1, signals, SFD_CLOEXEC);
}

int uti_read_signal(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    return n == (ssize_t)sizeof info ? (int)info.ssi_signo : -1;
}
