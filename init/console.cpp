#include "init/console.h"

#include "common/summary.h"
#include "common/text.h"

#include <fcntl.h>
#include <set>
#include <sys/stat.h>

namespace initbench {

// /proc/consoles lines look like "ttyS0                -W- (EC p a)    4:64".
static std::vector<std::string> active_console_devices() {
    std::vector<std::string> out;
    auto text = read_file("/proc/consoles");
    if (!text)
        return out;
    for (auto line : split_lines(text.value())) {
        auto f = split_words(line);
        if (f.size() >= 2 && f[1].find('W') != std::string_view::npos)
            out.emplace_back(f[0]);
    }
    return out;
}

void Console::open_all() {
    std::lock_guard lock(mu_);
    std::set<std::pair<dev_t, ino_t>> seen;
    for (const auto& name : active_console_devices()) {
        auto fd = open_fd("/dev/" + name, O_WRONLY | O_NOCTTY);
        if (!fd)
            continue;
        struct stat st {};
        if (fstat(fd.value().get(), &st) == 0 && !seen.insert({st.st_rdev, st.st_ino}).second)
            continue;
        names_.push_back(name);
        fds_.push_back(std::move(fd.value()));
    }
    if (fds_.empty()) {
        fds_.emplace_back(::dup(1));
        names_.push_back("stdout");
    }
}

void Console::write_to(Fd fd, std::string name) {
    std::lock_guard lock(mu_);
    names_.push_back(std::move(name));
    fds_.push_back(std::move(fd));
}

void Console::write_locked(std::string_view bytes) {
    for (auto& fd : fds_)
        (void)write_all(fd.get(), bytes); // a dead console must not stop the others
    bytes_ += bytes.size();
}

void Console::emit(nlohmann::json record) {
    std::lock_guard lock(mu_);
    if (ended_)
        return;
    if (summary_format_ != "json")
        records_.push_back(record);
    write_locked(writer_.line(std::move(record)));
}

void Console::set_summary_format(std::string format) {
    std::lock_guard lock(mu_);
    summary_format_ = std::move(format);
}

void Console::warning(const std::string& what, const std::string& reason) {
    emit({{"type", "warning"}, {"what", what}, {"reason", reason}});
}

void Console::error(const std::string& what, const std::string& reason, const std::string& key) {
    nlohmann::json r{{"type", "error"}, {"what", what}, {"reason", reason}};
    if (!key.empty())
        r["key"] = key;
    emit(std::move(r));
}

void Console::end(nlohmann::json extra) {
    std::lock_guard lock(mu_);
    if (ended_)
        return;
    ended_ = true;
    extra["type"] = "end"; // as the writer will frame it, for the summary
    records_.push_back(extra);
    write_locked(writer_.end_line(std::move(extra)));
    if (summary_format_ == "ktap")
        write_locked(ktap(test_cases(records_)));
    else if (summary_format_ == "lava")
        write_locked(lava_lines(test_cases(records_)));
}

void Console::text(std::string_view line) {
    std::lock_guard lock(mu_);
    std::string out = "initbench: ";
    out.append(line);
    out.push_back('\n');
    write_locked(out);
}

size_t Console::bytes_written() const {
    std::lock_guard lock(mu_);
    return bytes_;
}

bool Console::ended() const {
    std::lock_guard lock(mu_);
    return ended_;
}

} // namespace initbench
