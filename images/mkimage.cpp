// Build-time tool: turns an image manifest into a reproducible initramfs (zopfli's gzip),
// prints its size and what it is made of, and fails when it is over its budget: labs
// transfer the image for every boot, and TCG unpacks it at every boot.
//   initbench-mkimage MANIFEST OUT.cpio.gz [BUDGET_BYTES [BPF_DIR]]
// BPF_DIR holds the BPF objects built into the init (*.bpf.o), for the breakdown.
#include "host/image/cpio_archive.h"
#include "sys/sys.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <stdexcept>
#include <sys/stat.h>
#include <vector>
#include <zlib.h>

namespace {

using initbench::CpioEntry;

// A part's bytes compressed alone (zlib, level 9): what it adds to the image, roughly.
size_t compressed_size(const std::string& data) {
    uLongf size = compressBound(data.size());
    std::string out(size, '\0');
    if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(data.data()),
                  data.size(), 9) != Z_OK)
        throw std::runtime_error("zlib could not compress a part");
    return size;
}

std::string contents(const std::string& path) {
    auto text = initbench::read_whole_file(path);
    if (!text)
        throw std::runtime_error("cannot read " + text.error().message());
    return std::move(text.value());
}

// "init 571 KiB (of which BPF objects 12 KiB), busybox 1 004 KiB, profiles 5 KiB": each
// part compressed alone.
std::string breakdown(const std::vector<CpioEntry>& entries, const std::string& bpf_dir) {
    std::string init, busybox, profiles, bpf;
    for (const auto& e : entries) {
        if (e.kind != CpioEntry::Kind::file)
            continue;
        std::string data = e.contents ? *e.contents : contents(e.source);
        (e.path == "init" ? init : e.path == "bin/busybox" ? busybox : profiles) += data;
    }
    if (!bpf_dir.empty()) {
        std::vector<std::filesystem::path> objects;
        for (const auto& f : std::filesystem::directory_iterator(bpf_dir))
            if (f.path().string().ends_with(".bpf.o"))
                objects.push_back(f.path());
        std::sort(objects.begin(), objects.end());
        for (const auto& path : objects)
            bpf += contents(path);
    }
    auto kib = [](size_t n) { return std::to_string((n + 512) / 1024) + " KiB"; };
    return "init " + kib(compressed_size(init)) + " (of which BPF objects " + kib(compressed_size(bpf)) +
           "), busybox " + kib(compressed_size(busybox)) + ", profiles " + kib(compressed_size(profiles)) +
           "; each part compressed alone by zlib -9";
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MANIFEST OUT.cpio.gz [BUDGET_BYTES [BPF_DIR]]\n", argv[0]);
        return 2;
    }
    try {
        std::ifstream in(argv[1]);
        std::string text{std::istreambuf_iterator<char>(in), {}};
        auto entries = initbench::parse_manifest(text);
        const size_t budget = argc > 3 ? std::stoull(argv[3]) : 0;
        const std::string bpf_dir = argc > 4 ? argv[4] : "";
        initbench::write_cpio_gz(entries, argv[2], initbench::GzipEffort::smallest);
        struct stat st {};
        if (::stat(argv[2], &st) != 0)
            throw std::runtime_error(std::string("stat ") + argv[2] + ": " + std::strerror(errno));
        const auto size = static_cast<size_t>(st.st_size);
        const std::string parts = breakdown(entries, bpf_dir);
        std::printf("image %s: %zu entries, %zu bytes (%.1f KiB) compressed; %s\n", argv[2], entries.size(),
                    size, double(size) / 1024.0, parts.c_str());
        if (budget && size > budget) {
            std::fprintf(stderr,
                         "mkimage: %s is %zu bytes, %zu over its budget of %zu (INITBENCH_IMAGE_BUDGET): %s\n",
                         argv[2], size, size - budget, budget, parts.c_str());
            std::remove(argv[2]); // no image over budget is left for the next step to use
            return 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mkimage: %s\n", e.what());
        return 1;
    }
}
