// Build-time tool: turns an image manifest into a reproducible initramfs and prints its size.
#include "host/image/cpio_archive.h"

#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <sys/stat.h>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s MANIFEST OUT.cpio.gz\n", argv[0]);
        return 2;
    }
    try {
        std::ifstream in(argv[1]);
        std::string text{std::istreambuf_iterator<char>(in), {}};
        auto entries = initbench::parse_manifest(text);
        initbench::write_cpio_gz(entries, argv[2]);
        struct stat st {};
        ::stat(argv[2], &st);
        std::printf("image %s: %zu entries, %.1f KiB compressed\n", argv[2], entries.size(),
                    double(st.st_size) / 1024.0);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mkimage: %s\n", e.what());
        return 1;
    }
}
