// Writes initramfs archives (cpio "newc", gzip'd) that are reproducible: entries sorted by
// path, fixed mtimes and owners, sequential inode numbers, no timestamp in the gzip header.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

struct CpioEntry {
    enum class Kind { dir, file, symlink, chardev };
    Kind kind = Kind::file;
    std::string path;   // inside the archive, without the leading '/'
    unsigned mode = 0;  // permission bits
    std::string source; // file: host path to read; symlink: the target
    unsigned major = 0, minor = 0;
    std::optional<std::string> contents; // file: written instead of reading `source`
};

// Parses a manifest: one entry a line, '#' comments:
//   dir PATH MODE | file PATH MODE SOURCE | slink PATH TARGET | nod PATH MODE c MAJOR MINOR
// Throws std::runtime_error naming the line on a malformed one.
std::vector<CpioEntry> parse_manifest(const std::string& text);

// The contents of the entries of an image, newc cpio archives one after another (a packed
// image's base and what pack appended), compressed or not, whose paths `wanted` accepts, at
// most `limit` bytes of each (a symlink's: its target); none if it cannot be read.
std::optional<std::map<std::string, std::string>> read_cpio_files(
    const std::string& path, const std::function<bool(const std::string&)>& wanted,
    size_t limit = SIZE_MAX);

// fast: zlib's level 9, for pack (a fraction of a second). smallest: zopfli, for the built
// images, which have a size budget (about 10 s for 3 MB; 4 % smaller). Both are plain gzip.
enum class GzipEffort { fast, smallest };

// Writes `entries` (sorted here) as a gzip'd newc cpio to `out`. Throws std::runtime_error.
void write_cpio_gz(std::vector<CpioEntry> entries, const std::string& out,
                   GzipEffort effort = GzipEffort::fast);

} // namespace initbench
