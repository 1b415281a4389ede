// pipe: hackbench's pattern, continuously. Each worker is a group of `pipe.fds` senders and
// as many receivers, all processes; every sender writes `pipe.msg_size`-byte messages to
// every receiver in turn, over a pipe or a unix stream socket per receiver. One operation
// is one message read whole by its receiver.
#include "common/config.h"
#include "sys/sys.h"
#include "payload/core/load.h"
#include "payload/pipe/pipe_load.h"

#include <array>
#include <sys/socket.h>
#include <unistd.h>

namespace initbench {
namespace {

using Channel = std::array<int, 2>; // [0] the receiver's end, [1] the senders' end

struct PipeParams {
    unsigned fds = 0;      // senders and as many receivers per group
    unsigned msg_size = 0; // bytes per message
    bool sockets = false;  // unix stream sockets instead of pipes
};

[[noreturn]] void receive(const WorkerContext& ctx, int fd) {
    const size_t size = ctx.own<PipeParams>().msg_size;
    std::vector<char> buf(size);
    for (;;) {
        // One message at a time, as hackbench reads.
        for (size_t done = 0; done < size;) {
            ssize_t n = ::read(fd, buf.data() + done, size - done);
            if (n == 0 || (n < 0 && errno != EINTR))
                ::_exit(1); // every sender is gone
            done += n > 0 ? size_t(n) : 0;
        }
        ctx.count();
    }
}

[[noreturn]] void send(const WorkerContext& ctx, const std::vector<Channel>& channels) {
    const std::string msg(ctx.own<PipeParams>().msg_size, 'm');
    for (;;)
        for (const auto& c : channels)
            if (!write_all(c[1], msg))
                ::_exit(1); // the receiver is gone
}

void close_all(const std::vector<Channel>& channels, int keep_end) {
    for (const auto& c : channels)
        for (int end = 0; end < 2; end++)
            if (end != keep_end)
                ::close(c[end]);
}

[[noreturn]] void pipe_work(const WorkerContext& ctx) {
    const PipeParams& p = ctx.own<PipeParams>();
    std::vector<Channel> channels(p.fds);
    for (auto& c : channels) {
        int ok = p.sockets ? ::socketpair(AF_UNIX, SOCK_STREAM, 0, c.data()) : ::pipe(c.data());
        if (ok != 0)
            ::_exit(2); // out of file descriptors or memory: the framework reports the exit
    }
    const pid_t self = ::getpid();
    for (const auto& c : channels) {
        if (fork_retrying(ctx) == 0) {
            die_with_parent(self);
            int mine = c[0];
            for (const auto& other : channels)
                for (int end = 0; end < 2; end++)
                    if (other[end] != mine)
                        ::close(other[end]);
            receive(ctx, mine);
        }
    }
    for (unsigned i = 0; i < p.fds; i++) {
        if (fork_retrying(ctx) == 0) {
            die_with_parent(self);
            close_all(channels, 1);
            send(ctx, channels);
        }
    }
    close_all(channels, -1);
    ctx.ready();
    supervise_children();
}

uint64_t pipe_tasks(const LoadParams& p) {
    return uint64_t(p.workers) * (1 + 2 * uint64_t(own_params<PipeParams>(p).fds));
}
uint64_t pipe_bytes(const LoadParams& p) {
    return own_params<PipeParams>(p).msg_size;
}

void pipe_configure(const Config& config, LoadParams& p) {
    const PipeParams own{.fds = static_cast<unsigned>(config.uint("pipe.fds")),
                         .msg_size = static_cast<unsigned>(config.uint("pipe.msg_size")),
                         .sockets = config.str("pipe.mode") == "socket"};
    show(p, pipe_declaration, {{"fds", own.fds}, {"msg_size", own.msg_size}, {"mode", own.sockets ? "socket" : "pipe"}});
    p.own = own;
}

} // namespace

extern const LoadSpec pipe_load = {
    .decl = pipe_declaration, .tasks = pipe_tasks, .bytes_per_op = pipe_bytes,
    .configure = pipe_configure, .work = pipe_work};

} // namespace initbench
