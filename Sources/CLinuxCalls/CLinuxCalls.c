#define _GNU_SOURCE
#include "CLinuxCalls.h"

#include <errno.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <signal.h>
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

/* A lease that a writer breaks sends SIGIO, whose default action ends the
   process: it is ignored from the first lease on, for the life of the
   process (a handler the program installed itself is kept). */
static void ignore_lease_breaks(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, uti_ignore_lease_breaks);
}

void uti_ignore_lease_breaks(void) {
    struct sigaction current;
    if (sigaction(SIGIO, NULL, &current) == 0 && current.sa_handler == SIG_DFL) signal(SIGIO, SIG_IGN);
}

int uti_has_writer(int fd) {
    ignore_lease_breaks();
    /* The lease is released when the caller closes `fd`. */
    if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0) return 0;
    return errno == EAGAIN ? 1 : -1;
}

int uti_lease_held(int fd) { return fcntl(fd, F_GETLEASE) == F_RDLCK; }

ssize_t uti_copy_range(int from, int to, size_t length) {
    return copy_file_range(from, NULL, to, NULL, length, 0);
}

off_t uti_seek_data(int fd, off_t offset) { return lseek(fd, offset, SEEK_DATA); }

off_t uti_seek_hole(int fd, off_t offset) { return lseek(fd, offset, SEEK_HOLE); }

ssize_t uti_copy_range_at(int from, off_t *from_offset, int to, off_t *to_offset, size_t length) {
    return copy_file_range(from, from_offset, to, to_offset, length, 0);
}

int uti_signal_descriptor(const sigset_t *signals) {
    return signalfd(-1, signals, SFD_CLOEXEC);
}

int uti_read_signal(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    return n == (ssize_t)sizeof info ? (int)info.ssi_signo : -1;
}

struct build_id_search { unsigned char *out; int capacity; int length; };

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct build_id_search *search = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)p;
            const unsigned char *name = p + sizeof(ElfW(Nhdr));
            const unsigned char *desc = name + ((note->n_namesz + 3) & ~3u);
            if (desc + note->n_descsz > end) break;
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                int n = (int)note->n_descsz < search->capacity ? (int)note->n_descsz : search->capacity;
                memcpy(search->out, desc, n);
                search->length = n;
                return 1;
            }
            p = desc + ((note->n_descsz + 3) & ~3u);
        }
    }
    /* Only the first object is the executable. */
    return 1;
}

int uti_executable_build_id(unsigned char *out, int capacity) {
    struct build_id_search search = { out, capacity, 0 };
    dl_iterate_phdr(find_build_id, &search);
    return search.length;
}

int uti_memory_file(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

int uti_pipe_cloexec(int ends[2]) {
    return pipe2(ends, O_CLOEXEC);
}
