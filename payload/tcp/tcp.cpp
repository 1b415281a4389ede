// tcp: tbench-style request/response over loopback TCP. Each worker is one client/server
// pair: the worker listens on 127.0.0.1, forks its client and serves it. The client sends
// a `tcp.msg_size`-byte request and waits for as large a response. One operation is one
// request answered. A sweep over `tcp.clients` makes one phase per client count.
#include "common/config.h"
#include "sys/sys.h"
#include "payload/core/load.h"
#include "payload/tcp/tcp_load.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace initbench {
namespace {

struct TcpParams {
    unsigned msg_size = 0; // bytes per request and per response
};

Fd tcp_socket() {
    Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    int one = 1;
    if (s.valid()) // request/response: never wait to coalesce small writes
        ::setsockopt(s.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return s;
}

sockaddr_in loopback(uint16_t port_be) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = port_be;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

// Reads exactly buf.size() bytes; false when the peer is gone.
bool read_exact(int fd, std::string& buf) {
    for (size_t done = 0; done < buf.size();) {
        ssize_t n = ::read(fd, buf.data() + done, buf.size() - done);
        if (n == 0 || (n < 0 && errno != EINTR))
            return false;
        done += n > 0 ? size_t(n) : 0;
    }
    return true;
}

[[noreturn]] void client(const WorkerContext& ctx, uint16_t port_be) {
    Fd s = tcp_socket();
    sockaddr_in addr = loopback(port_be);
    if (!s.valid() || ::connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        ::_exit(3);
    std::string buf(ctx.own<TcpParams>().msg_size, 'q');
    for (;;) {
        if (!write_all(s.get(), buf) || !read_exact(s.get(), buf))
            ::_exit(1); // the server is gone
        ctx.count();
    }
}

[[noreturn]] void tcp_work(const WorkerContext& ctx) {
    Fd listener = tcp_socket();
    sockaddr_in addr = loopback(0); // port 0: the kernel picks a free one
    socklen_t len = sizeof addr;
    if (!listener.valid() || ::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listener.get(), 1) != 0 ||
        ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        ::_exit(2);
    const pid_t self = ::getpid();
    if (fork_retrying(ctx) == 0) {
        die_with_parent(self);
        listener.reset();
        client(ctx, addr.sin_port);
    }
    Fd conn(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    listener.reset();
    int one = 1;
    ::setsockopt(conn.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::string buf(ctx.own<TcpParams>().msg_size, 'r');
    ctx.ready();
    for (;;)
        if (!read_exact(conn.get(), buf) || !write_all(conn.get(), buf))
            ::_exit(1); // the client is gone
}

std::string tcp_unsupported() {
    Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    return s.valid() ? "" : std::string("no IPv4 TCP sockets: ") + std::strerror(errno);
}

uint64_t tcp_tasks(const LoadParams& p) {
    return 2 * uint64_t(p.workers);
}
uint64_t tcp_bytes(const LoadParams& p) {
    return 2 * uint64_t(own_params<TcpParams>(p).msg_size);
}

void tcp_configure(const Config& config, LoadParams& p) {
    const TcpParams own{.msg_size = static_cast<unsigned>(config.uint("tcp.msg_size"))};
    show(p, tcp_declaration, {{"msg_size", own.msg_size}});
    p.own = own;
}

} // namespace

extern const LoadSpec tcp_load = {
    .decl = tcp_declaration, .unsupported = tcp_unsupported, .tasks = tcp_tasks,
    .bytes_per_op = tcp_bytes, .configure = tcp_configure, .work = tcp_work};

} // namespace initbench
