#include "host/pack.h"

#include "common/config.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <archive.h>
#include <archive_entry.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace initbench {
namespace fs = std::filesystem;
namespace {

// Appends the file at `path` to `out` (the whole of it, or throws).
void append_file(std::ostream& out, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (in && fs::file_size(path) == 0)
        return; // inserting an empty streambuf would set failbit
    if (!in || !(out << in.rdbuf()))
        throw std::runtime_error("cannot read " + path);
}

// The embedded profiles of an image, by name; none if it cannot be read.
std::optional<std::map<std::string, std::string>> image_profiles(const std::string& image) {
    struct Deleter {
        void operator()(archive* a) const { archive_read_free(a); }
    };
    std::unique_ptr<archive, Deleter> a(archive_read_new());
    archive_read_support_filter_all(a.get());
    archive_read_support_format_cpio(a.get());
    if (archive_read_open_filename(a.get(), image.c_str(), 1 << 16) != ARCHIVE_OK)
        return std::nullopt;
    const std::string dir = "etc/initbench/profiles/";
    std::map<std::string, std::string> out;
    archive_entry* e = nullptr;
    while (archive_read_next_header(a.get(), &e) == ARCHIVE_OK) {
        std::string path = archive_entry_pathname(e);
        if (!path.starts_with(dir) || !path.ends_with(".conf"))
            continue;
        std::string text(static_cast<size_t>(std::max<int64_t>(archive_entry_size(e), 0)), '\0');
        if (archive_read_data(a.get(), text.data(), text.size()) !=
            static_cast<ssize_t>(text.size()))
            return std::nullopt;
        out[path.substr(dir.size(), path.size() - dir.size() - 5)] = std::move(text);
    }
    return out;
}

unsigned file_mode(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0)
        throw std::runtime_error("cannot stat " + p.string());
    return (st.st_mode & 0111) ? 0755 : 0644;
}

CpioEntry file_entry(const std::string& guest, const fs::path& local) {
    CpioEntry e;
    e.kind = CpioEntry::Kind::file;
    e.path = guest.substr(1);
    e.mode = file_mode(local);
    e.source = local.string();
    return e;
}

struct Options {
    std::string image, out, config;
    std::vector<std::string> adds;
};

int run_pack(const Options& o) {
    try {
        std::vector<PayloadAdd> adds;
        for (const auto& text : o.adds) {
            PayloadAdd add;
            if (std::string why = parse_payload_add(text, add); !why.empty()) {
                std::fprintf(stderr, "initbench pack: --add %s: %s\n", text.c_str(), why.c_str());
                return 2;
            }
            adds.push_back(std::move(add));
        }
        if (adds.empty() && o.config.empty()) {
            std::fprintf(stderr, "initbench pack: nothing to add: give --add or --config\n");
            return 2;
        }
        std::optional<std::string> config;
        if (!o.config.empty())
            config = o.config;
        pack_image(o.image, adds, config, o.out);
        std::printf("%s: %s + %zu payload entries, %.1f KiB\n", o.out.c_str(), o.image.c_str(),
                    payload_entries(adds, config).size(), double(fs::file_size(o.out)) / 1024.0);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "initbench pack: %s\n", e.what());
        return 1;
    }
}

} // namespace

std::string parse_payload_add(const std::string& text, PayloadAdd& out) {
    const size_t colon = text.rfind(":/");
    if (colon == std::string::npos || colon == 0)
        return "expected LOCAL:/payload/PATH";
    PayloadAdd add{text.substr(0, colon), text.substr(colon + 1)};
    const std::string prefix = std::string(kPayloadDir) + "/";
    if (!add.guest.starts_with(prefix) || add.guest.size() == prefix.size())
        return "the image path must be under " + prefix;
    for (const auto& part : fs::path(add.guest.substr(1)))
        if (part.empty() || part == "." || part == "..")
            return "the image path must not contain empty, '.' or '..' parts";
    if (add.guest.ends_with("/") || add.guest.find("//") != std::string::npos)
        return "the image path must not contain empty, '.' or '..' parts";
    if (add.guest == kPayloadExperiment)
        return std::string(kPayloadExperiment) + " is written by --config";
    if (!fs::exists(add.local))
        return "no such file or directory: " + add.local;
    out = std::move(add);
    return "";
}

std::vector<CpioEntry> payload_entries(const std::vector<PayloadAdd>& adds,
                                       const std::optional<std::string>& experiment_path) {
    std::vector<CpioEntry> files;
    for (const auto& add : adds) {
        if (fs::is_directory(add.local)) {
            for (const auto& item : fs::recursive_directory_iterator(add.local)) {
                const std::string guest =
                    add.guest + "/" + fs::relative(item.path(), add.local).generic_string();
                if (item.is_regular_file())
                    files.push_back(file_entry(guest, item.path()));
                else if (item.is_directory())
                    files.push_back({CpioEntry::Kind::dir, guest.substr(1), 0755, "", 0, 0});
            }
        } else if (fs::is_regular_file(add.local)) {
            files.push_back(file_entry(add.guest, add.local));
        } else {
            throw std::runtime_error(add.local + " is neither a file nor a directory");
        }
    }
    if (experiment_path) {
        CpioEntry e = file_entry(kPayloadExperiment, *experiment_path);
        e.mode = 0644;
        files.push_back(std::move(e));
    }
    // The kernel creates no missing parent directory: every one gets its own entry.
    std::set<std::string> seen, dirs;
    for (const auto& e : files) {
        if (!seen.insert(e.path).second)
            throw std::runtime_error("/" + e.path + " is added twice");
        for (size_t slash = e.path.find('/'); slash != std::string::npos;
             slash = e.path.find('/', slash + 1))
            dirs.insert(e.path.substr(0, slash));
    }
    for (const auto& d : dirs)
        if (!seen.count(d))
            files.push_back({CpioEntry::Kind::dir, d, 0755, "", 0, 0});
    return files;
}

std::vector<std::string> check_experiment(const std::string& text, const std::string& base_image) {
    const auto profiles = image_profiles(base_image);
    std::vector<std::string> available;
    if (profiles)
        for (const auto& [name, _] : *profiles)
            available.push_back(name);
    // As the init applies it: the profile "payload" over the profile it includes.
    auto lookup = [&](std::string_view name) -> std::optional<std::string> {
        if (name == "payload")
            return text;
        if (!profiles)
            return std::string(); // unknown here: the init will check the include
        auto it = profiles->find(std::string(name));
        return it == profiles->end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    std::vector<std::string> problems;
    for (const auto& e : parse_config("initbench.profile=payload", lookup, available).errors)
        problems.push_back(e.describe());
    return problems;
}

void pack_image(const std::string& base, const std::vector<PayloadAdd>& adds,
                const std::optional<std::string>& experiment_path, const std::string& out) {
    if (fs::exists(out) && fs::equivalent(base, out))
        throw std::runtime_error("the output must not be the base image");
    if (experiment_path) {
        std::ostringstream text;
        append_file(text, *experiment_path);
        const auto problems = check_experiment(text.str(), base);
        if (!problems.empty()) {
            std::string all;
            for (const auto& p : problems)
                all += "\n  " + p;
            throw std::runtime_error(*experiment_path + ": bad experiment file:" + all);
        }
    }
    const std::string payload = out + ".payload.tmp", whole = out + ".tmp";
    write_cpio_gz(payload_entries(adds, experiment_path), payload);
    {
        std::ofstream o(whole, std::ios::binary | std::ios::trunc);
        append_file(o, base);
        append_file(o, payload);
        if (!o.flush())
            throw std::runtime_error("cannot write " + whole);
    }
    fs::remove(payload);
    fs::rename(whole, out);
}

void add_pack_command(CLI::App& app) {
    auto o = std::make_shared<Options>();
    auto* cmd = app.add_subcommand(
        "pack",
        "Append files and an experiment file to an image (a second cpio; the base is kept)");
    cmd->add_option("--image", o->image, "Base image")->required()->check(CLI::ExistingFile);
    cmd->add_option("--add", o->adds, "LOCAL:/payload/PATH, a file or a directory (repeatable)");
    cmd->add_option(
           "--config", o->config,
           "Experiment file (profile lines), applied over the profile and under the kernel "
           "command line")
        ->check(CLI::ExistingFile);
    cmd->add_option("-o,--out", o->out, "Output image")->required();
    // main() returns the code carried by CLI::RuntimeError.
    cmd->callback([o] { throw CLI::RuntimeError(run_pack(*o)); });
}

} // namespace initbench
