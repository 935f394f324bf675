/* Linux calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc module is built without. */
#include <sys/socket.h>

/* accept4(2): accept with SOCK_NONBLOCK | SOCK_CLOEXEC set atomically. */
int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

#include <spawn.h>

/* posix_spawn_file_actions_addclosefrom_np(3): close every descriptor from `from` up in the child. */
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/* mallopt(3) and malloc_trim(3): glibc's allocator, tuned and asked to give freed memory back. */
#include <malloc.h>

/* epoll(7), through functions that keep `struct epoll_event` (packed on x86-64) on the C side:
   the token is the watcher's, never the descriptor, so a reused descriptor number cannot reach
   a watcher that was removed. */
#include <stdint.h>
#include <sys/epoll.h>

static inline int notifyd_epoll_control(int epoll, int operation, int fd, uint32_t events, uint64_t token) {
  struct epoll_event event = {.events = events, .data = {.u64 = token}};
  return epoll_ctl(epoll, operation, fd, &event);
}

/* Waits for up to 64 events; fills `tokens` and `events` (each with room for 64). */
static inline int notifyd_epoll_wait(int epoll, uint64_t *tokens, uint32_t *events, int timeout) {
  struct epoll_event ready[64];
  int count = epoll_wait(epoll, ready, 64, timeout);
  for (int index = 0; index < count; index++) {
    tokens[index] = ready[index].data.u64;
    events[index] = ready[index].events;
  }
  return count;
}

/* pipe2(2): a pipe with O_CLOEXEC | O_NONBLOCK set atomically. */
int pipe2(int fds[2], int flags);

/* eventfd(2): a counter another thread bumps to wake the event loop. */
#include <sys/eventfd.h>

/* memfd_create(2): anonymous memory behind a descriptor, shared with a Wayland compositor. */
int memfd_create(const char *name, unsigned int flags);
static const unsigned int notifyd_MFD_CLOEXEC = 0x0001U;

/* inotify(7): the display servers' sockets appearing and going, for a daemon that follows the session. */
#include <sys/inotify.h>
