#define _GNU_SOURCE
#include "CLinuxCalls.h"

#include <errno.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
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
   process. While a lease may be held, SIGIO is ignored when its action is
   the default (a handler or an ignore the program set itself is kept):
   for the life of the process (uti_ignore_lease_breaks), or between
   uti_lease_scope_begin and the matching uti_lease_scope_end, after which
   the default comes back. A signal generated while it was ignored is
   discarded, so none is left pending for the default action. */
static pthread_mutex_t lease_lock = PTHREAD_MUTEX_INITIALIZER;
static int lease_scopes;          /* scopes open now */
static int lease_scope_ignored;   /* the first scope set SIG_IGN */
static int lease_ignored_for_life;

static int ignore_if_default(void) {
    struct sigaction current;
    if (sigaction(SIGIO, NULL, &current) != 0 || (current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL)
        return 0;
    signal(SIGIO, SIG_IGN);
    return 1;
}

void uti_ignore_lease_breaks(void) {
    pthread_mutex_lock(&lease_lock);
    if (!lease_ignored_for_life) {
        lease_ignored_for_life = 1;
        if (lease_scopes == 0) ignore_if_default();
    }
    pthread_mutex_unlock(&lease_lock);
}

void uti_lease_scope_begin(void) {
    pthread_mutex_lock(&lease_lock);
    if (lease_scopes++ == 0 && !lease_ignored_for_life) lease_scope_ignored = ignore_if_default();
    pthread_mutex_unlock(&lease_lock);
}

void uti_lease_scope_end(void) {
    pthread_mutex_lock(&lease_lock);
    if (lease_scopes > 0 && --lease_scopes == 0) {
        if (lease_scope_ignored && !lease_ignored_for_life) {
            struct sigaction current;
            /* Only the ignore set here is undone: a disposition the program set meanwhile stays. */
            if (sigaction(SIGIO, NULL, &current) == 0 && !(current.sa_flags & SA_SIGINFO)
                && current.sa_handler == SIG_IGN)
                signal(SIGIO, SIG_DFL);
        }
        lease_scope_ignored = 0;
    }
    pthread_mutex_unlock(&lease_lock);
}

int uti_has_writer(int fd) {
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

int uti_event_descriptor(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
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
