// Writing whole buffers to descriptors: files, sockets, and pipes whose
// reader may be gone.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string_view>

namespace slipway::base {

// Writes all of `data` to `fd`, retrying on EINTR and short writes; returns
// false on any other error (errno set). For files, and pipes whose reader
// outlives the write.
bool write_all(int fd, std::string_view data);

// The same for a socket, without SIGPIPE when the peer is gone (EPIPE).
bool send_all(int socket, std::string_view data);

// The same for a pipe whose reader may have exited: EPIPE, never SIGPIPE.
bool write_all_to_pipe(int fd, std::string_view data);

// One write(2) that fails with EPIPE instead of raising SIGPIPE: SIGPIPE is
// blocked on this thread during the call, and one it raised is consumed.
ssize_t write_without_sigpipe(int fd, const void* data, std::size_t size);

}  // namespace slipway::base
