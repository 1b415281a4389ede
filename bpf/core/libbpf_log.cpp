#include "bpf/core/libbpf_log.h"

#include <bpf/libbpf.h>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace initbench {
namespace {

// Plain arrays: a thread_local with a destructor needs __cxa_thread_atexit_impl, which
// musl does not have.
thread_local bool capturing = false;
thread_local char last_warning[512];

int log_to_buffer(enum libbpf_print_level level, const char* fmt, va_list args) {
    if (level == LIBBPF_DEBUG || !capturing)
        return 0;
    char buf[sizeof last_warning];
    int n = std::vsnprintf(buf, sizeof buf, fmt, args);
    size_t len = std::strlen(buf);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        buf[--len] = 0;
    if (len)
        std::memcpy(last_warning, buf, len + 1);
    return n;
}

} // namespace

void install_libbpf_logger() { libbpf_set_print(log_to_buffer); }

LibbpfLogCapture::LibbpfLogCapture() {
    capturing = true;
    last_warning[0] = 0;
}

LibbpfLogCapture::~LibbpfLogCapture() { capturing = false; }

std::string LibbpfLogCapture::last_or(const std::string& fallback) const {
    return last_warning[0] ? std::string(last_warning) : fallback;
}

bool LibbpfLogCapture::failed(std::string& why, const std::string& step, int err) const {
    why = step + ": " + last_or(std::strerror(err));
    return false;
}

bool LibbpfLogCapture::attach_failed(std::string& why, int err) const {
    failed(why, "attach", err);
    why += " (errno " + std::to_string(err) + ")";
    return false;
}

} // namespace initbench
