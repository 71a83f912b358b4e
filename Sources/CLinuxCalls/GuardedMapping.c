#define _GNU_SOURCE
#include "CLinuxCalls.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Read-only mappings of files that survive the file being cut short.
   Touching a mapped page past a file's new end raises SIGBUS. The handler
   installed here replaces a guarded mapping hit that way with zero-filled
   anonymous memory of the same size (mmap is async-signal-safe), marks it
   cut short and returns, so the read is retried and sees zeros. A SIGBUS
   anywhere else goes to the action that was set before. */

enum { SLOTS = 32 };

struct guarded {
    _Atomic uintptr_t start;   /* 0 when the slot is free */
    _Atomic uintptr_t end;
    _Atomic int cut_short;
};

static struct guarded slots[SLOTS];
static struct sigaction previous;

static void pass_on(int signal_number, siginfo_t *info, void *context) {
    if (previous.sa_flags & SA_SIGINFO) {
        previous.sa_sigaction(signal_number, info, context);
        return;
    }
    if (previous.sa_handler == SIG_IGN || previous.sa_handler == SIG_DFL) {
        /* The default action: a fault retried after return raises it again;
           a signal sent by a process is raised again here. */
        signal(SIGBUS, SIG_DFL);
        if (info->si_code <= 0) raise(SIGBUS);
        return;
    }
    previous.sa_handler(signal_number);
}

static void on_bus_error(int signal_number, siginfo_t *info, void *context) {
    uintptr_t address = (uintptr_t)info->si_addr;
    if (info->si_code > 0) {
        for (int i = 0; i < SLOTS; i++) {
            uintptr_t start = atomic_load(&slots[i].start);
            if (start == 0 || address < start || address >= atomic_load(&slots[i].end)) continue;
            void *zeros = mmap((void *)start, atomic_load(&slots[i].end) - start, PROT_READ,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            if (zeros == MAP_FAILED) break;
            atomic_store(&slots[i].cut_short, 1);
            return;
        }
    }
    pass_on(signal_number, info, context);
}

static void install(void) {
    struct sigaction action = {0};
    action.sa_sigaction = on_bus_error;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &previous);
}

static struct guarded *slot_of(const void *base) {
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load(&slots[i].start) == (uintptr_t)base) return &slots[i];
    }
    return NULL;
}

void *uti_map_guarded(int fd, size_t length) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t mapped = (length + page - 1) / page * page;
    void *base = mmap(NULL, mapped, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) return NULL;
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t free_slot = 0;
        if (!atomic_compare_exchange_strong(&slots[i].start, &free_slot, (uintptr_t)base)) continue;
        /* A free slot's end is 0, so the handler ignores it until the end is set. */
        atomic_store(&slots[i].cut_short, 0);
        atomic_store(&slots[i].end, (uintptr_t)base + mapped);
        return base;
    }
    /* Every slot taken: not mapped, so that the caller reads the file instead. */
    munmap(base, mapped);
    errno = 0;
    return NULL;
}

void uti_unmap_guarded(void *base, size_t length) {
    struct guarded *slot = slot_of(base);
    if (slot) {
        atomic_store(&slot->end, 0);
        atomic_store(&slot->start, 0);
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    munmap(base, (length + page - 1) / page * page);
}

int uti_mapping_cut_short(const void *base) {
    struct guarded *slot = slot_of(base);
    return slot ? atomic_load(&slot->cut_short) : 0;
}
