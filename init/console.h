// Where the records go: every active console (/proc/consoles), because a lab reads the
// serial line while /dev/console is only the last console= given.
#pragma once

#include "common/record.h"
#include "sys/sys.h"

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace initbench {

class Console {
public:
    // Opens the consoles the kernel lists; falls back to fd 1 when none can be opened.
    void open_all();
    // Writes the records to `fd` as well, named `name`: a test reads back what the consoles
    // would show, without touching the machine's own.
    void write_to(Fd fd, std::string name);
    std::vector<std::string> names() const { return names_; }

    // Frames and writes one record; thread-safe. Ignored after end().
    void emit(nlohmann::json record);
    void warning(const std::string& what, const std::string& reason);
    void error(const std::string& what, const std::string& reason, const std::string& key = {});
    // Writes the end record once, proving how many records came before it, then the
    // summary for labs ("ktap" or "lava"; "json" writes none) derived from all records.
    void end(nlohmann::json extra);
    void set_summary_format(std::string format);
    // Plain text for humans (progress); not a record.
    void text(std::string_view line);

    size_t bytes_written() const;
    bool ended() const;

private:
    void write_locked(std::string_view bytes);

    mutable std::mutex mu_;
    RecordWriter writer_;
    std::vector<Fd> fds_;
    std::vector<std::string> names_;
    size_t bytes_ = 0;
    bool ended_ = false;
    std::string summary_format_ = "json";
    std::vector<nlohmann::json> records_; // for the summary
};

} // namespace initbench
