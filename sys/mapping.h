// A memory mapping that unmaps itself when it ends: the guest's BPF array maps read in place
// (wakeups) and the host's kernel files read in place (kernel_image) hold one.
#pragma once

#include <sys/mman.h>

#include <cstddef>

namespace initbench {

class Mapping {
public:
    Mapping() = default;
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping() { unmap(); }

    // mmap(2) of `size` bytes of `fd` from its start, in place of any earlier mapping; false,
    // with errno set, when the kernel refuses.
    bool map(std::size_t size, int prot, int flags, int fd) {
        unmap();
        addr_ = ::mmap(nullptr, size, prot, flags, fd, 0);
        size_ = addr_ == MAP_FAILED ? 0 : size;
        return addr_ != MAP_FAILED;
    }
    void* data() const { return addr_ == MAP_FAILED ? nullptr : addr_; }
    std::size_t size() const { return size_; }

private:
    void unmap() {
        if (addr_ != MAP_FAILED)
            ::munmap(addr_, size_);
        addr_ = MAP_FAILED;
        size_ = 0;
    }

    void* addr_ = MAP_FAILED;
    std::size_t size_ = 0;
};

} // namespace initbench
