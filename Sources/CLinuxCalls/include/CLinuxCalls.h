#ifndef CLINUXCALLS_H
#define CLINUXCALLS_H

#include <sys/types.h>
#include <signal.h>

/// Linux calls that glibc declares only under _GNU_SOURCE, which Swift's
/// Glibc module does not define. Each returns what the call returns and
/// leaves errno as the call set it.

/// renameat2 with RENAME_NOREPLACE: fails with EEXIST instead of replacing
/// the destination; EINVAL or ENOSYS where the file system or kernel
/// cannot do it.
int uti_rename_noreplace(int from_dir, const char *from, int to_dir, const char *to);

/// An unnamed file in `dir` (O_TMPFILE), open for writing, or -1.
int uti_open_unnamed_file(int dir, mode_t mode);

/// Gives an unnamed file (or any open file) the name `to` in `to_dir`
/// through /proc/self/fd; EEXIST when the name is taken.
int uti_link_open_file(int fd, int to_dir, const char *to);

/// Whether some process has the regular file open for writing: 1 yes,
/// 0 no, -1 unknown (a read lease cannot be tried: not the owner, or the
/// file system has no leases). `fd` must be open read-only; a lease taken
/// is held until `fd` is closed: while it is, an open for writing by any
/// process waits (until the lease is given up or the kernel's
/// lease-break-time passes), and `uti_lease_held` turns 0. The lease-break
/// signal, SIGIO, ends a process whose action for it is the default: call
/// it only inside `uti_lease_scope_begin`/`_end`, or after
/// `uti_ignore_lease_breaks`.
int uti_has_writer(int fd);

/// 1 while the read lease `uti_has_writer` took on `fd` is held and no
/// process has asked to write the file since; 0 otherwise.
int uti_lease_held(int fd);

/// Sets SIGIO to be ignored for the rest of the process when its action is
/// the default (which ends the process): for leases held as long as the
/// process lives (mapped compiled registries).
void uti_ignore_lease_breaks(void);

/// Opens a scope in which leases may be taken: SIGIO is ignored when its
/// action is the default, until every scope opened is closed by
/// `uti_lease_scope_end` (from any thread); then the default comes back
/// (unless the program set another action meanwhile). Leases taken in a
/// scope must be released (their descriptors closed) before it ends.
void uti_lease_scope_begin(void);
void uti_lease_scope_end(void);

/// The GNU build ID of the running executable, copied into `out` (at most
/// `capacity` bytes); returns its length, or 0 when the executable has none.
int uti_executable_build_id(unsigned char *out, int capacity);

/// copy_file_range from the current offsets, at most `length` bytes.
ssize_t uti_copy_range(int from, int to, size_t length);

/// lseek to the next data or hole at or after `offset` (SEEK_DATA and
/// SEEK_HOLE, which glibc declares only under _GNU_SOURCE).
off_t uti_seek_data(int fd, off_t offset);
off_t uti_seek_hole(int fd, off_t offset);

/// copy_file_range between the given offsets, which it advances.
ssize_t uti_copy_range_at(int from, off_t *from_offset, int to, off_t *to_offset, size_t length);

/// An anonymous file in memory (memfd_create, close-on-exec): -1 on failure.
int uti_memory_file(const char *name);

/// pipe2 with O_CLOEXEC on both ends: 0, or -1 with errno set.
int uti_pipe_cloexec(int ends[2]);

/// A new eventfd (counter 0, close-on-exec, non-blocking), or -1 with errno.
int uti_event_descriptor(void);

/// A descriptor that becomes readable when one of `signals` arrives; the
/// signals must be blocked. -1 on failure.
int uti_signal_descriptor(const sigset_t *signals);

/// Reads one pending signal from a signal descriptor: its number, or -1.
int uti_read_signal(int fd);

/// Maps `length` bytes of `fd` read-only and private, guarded against the
/// file being cut short while mapped: a page past the file's new end then
/// reads as zeros instead of raising SIGBUS, and the mapping is marked cut
/// short. The first call installs a SIGBUS handler that passes any other
/// SIGBUS to the action set before it. NULL when mmap fails (errno set) or
/// 32 guarded mappings are in use (errno 0).
void *uti_map_guarded(int fd, size_t length);

/// Unmaps a mapping from `uti_map_guarded` (the same `length`).
void uti_unmap_guarded(void *base, size_t length);

/// 1 when the guarded mapping at `base` was cut short, else 0.
int uti_mapping_cut_short(const void *base);

#endif
