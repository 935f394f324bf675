/* Linux calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc module is built without. */
#include <sys/socket.h>

/* accept4(2): accept with SOCK_NONBLOCK | SOCK_CLOEXEC set atomically. */
int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

#include <spawn.h>

/* posix_spawn_file_actions_addclosefrom_np(3): close every descriptor from `from` up in the child. */
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/* mallopt(3) and malloc_trim(3): glibc's allocator, tuned and asked to give freed memory back. */
#include <malloc.h>
