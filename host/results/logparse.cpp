#include "host/results/logparse.h"

#include "host/results/console_frames.h"

#include "common/crc32.h"
#include "common/json_fields.h"
#include "common/kernel_events.h"
#include "common/record.h"
#include "common/text.h"
#include "host/results/lava_log.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <map>
#include <unordered_map>

namespace initbench {
namespace {

using nlohmann::json;

const json *member(const json &j, const char *key) { return json_field(j, key); }

bool has_type(const json &j, std::string_view type) {
    const json *t = member(j, "type");
    return t && t->is_string() && t->get_ref<const std::string &>() == type;
}

} // namespace

// ---- per-run state ----------------------------------------------------------------

struct LogParser::Run {
    struct Stored {
        uint64_t line;
        std::string crc;
        json value;
    };
    int index = 0;
    std::map<uint64_t, Stored> records;
    std::vector<DamagedLine> damaged;
    std::vector<DuplicateSeq> duplicates;
    std::vector<DamagedLine> after_end;
    bool conflict = false; // a duplicate seq with different content
    EndInfo end;
    uint64_t first_line = 0, last_line = 0;
    std::vector<uint64_t> missing;
    uint64_t missing_count = 0;
    uint64_t unlisted = 0; // entries left off the capped lists
    LogStatus status = LogStatus::no_records;

    bool empty() const { return records.empty() && damaged.empty(); }
    void touch(uint64_t line) {
        if (!first_line)
            first_line = line;
        last_line = line;
    }
    template <typename T> void list(std::vector<T> &to, T item) {
        if (to.size() < kMaxListed)
            to.push_back(std::move(item));
        else
            ++unlisted;
    }
    void note_end(uint64_t seq, uint64_t line, const json &value);
    void settle();
    void export_to(ParsedLog &out);

private:
    void find_missing(uint64_t limit);
    void check_end();
};

void LogParser::Run::note_end(uint64_t seq, uint64_t line, const json &value) {
    end.found = true;
    end.seq = seq;
    end.line = line;
    if (const json *n = member(value, "records"); n && n->is_number_unsigned())
        end.records = n->get<uint64_t>();
    if (const json *d = member(value, "digest"); d && d->is_string())
        end.digest = excerpt(d->get_ref<const std::string &>());
}

void LogParser::Run::find_missing(uint64_t limit) {
    uint64_t expect = 0;
    auto note_gap = [&](uint64_t upto) {
        for (uint64_t s = expect; s < upto && missing.size() < kMaxListed; ++s)
            missing.push_back(s);
        missing_count += upto - expect;
    };
    for (const auto &[seq, stored] : records) {
        if (seq >= limit)
            break;
        if (seq > expect)
            note_gap(seq);
        expect = seq + 1;
    }
    if (limit > expect)
        note_gap(limit);
}

void LogParser::Run::check_end() {
    const bool beyond = !records.empty() && records.rbegin()->first > end.seq;
    end.count_ok = end.records == end.seq && missing_count == 0 && !beyond;
    if (!end.count_ok)
        return;
    uint32_t digest = 0;
    for (const auto &[seq, stored] : records)
        if (seq < end.seq)
            digest = crc32(stored.crc, digest);
    end.digest_ok = end.digest == crc32_hex(digest);
}

void LogParser::Run::settle() {
    const uint64_t limit =
        end.found ? end.seq : (records.empty() ? 0 : records.rbegin()->first + 1);
    find_missing(limit);
    if (end.found)
        check_end();
    if (empty())
        status = LogStatus::no_records;
    else if (!damaged.empty() || missing_count || conflict ||
             (end.found && !(end.count_ok && end.digest_ok)))
        status = LogStatus::corrupt;
    else
        status = end.found ? LogStatus::complete : LogStatus::incomplete;
}

void LogParser::Run::export_to(ParsedLog &out) {
    out.status = status;
    out.run_kept = index;
    for (auto &[seq, stored] : records)
        out.records.push_back({seq, stored.line, std::move(stored.value)});
    out.damaged = std::move(damaged);
    out.missing = std::move(missing);
    out.missing_count = missing_count;
    out.duplicates = std::move(duplicates);
    out.after_end = std::move(after_end);
    out.unlisted = unlisted;
    out.end = end;
    out.first_line = first_line;
    out.last_line = last_line;
}

// ---- parser --------------------------------------------------------------------------

LogParser::LogParser() : cur_(std::make_unique<Run>()) {}
LogParser::~LogParser() = default;

void LogParser::feed(std::string_view bytes) {
    if (finished_)
        return;
    for (;;) {
        const size_t nl = bytes.find('\n');
        append(bytes.substr(0, nl));
        if (nl == std::string_view::npos)
            return;
        end_line();
        bytes.remove_prefix(nl + 1);
    }
}

void LogParser::append(std::string_view part) {
    if (overlong_)
        return;
    if (part.size() > kMaxLine - line_.size()) {
        part = part.substr(0, kMaxLine - line_.size());
        overlong_ = true;
    }
    line_.append(part);
}

void LogParser::end_line() {
    ++line_no_;
    try {
        if (overlong_)
            damage(line_, "line too long");
        else
            process(line_);
    } catch (const std::exception &e) {
        // Only allocation failure can get here; report it rather than lose the line silently.
        try {
            damage(line_, std::string("internal error: ") + e.what());
        } catch (...) {
        }
    }
    overlong_ = false;
    line_.clear();
    if (line_.capacity() > (64u << 10))
        std::string().swap(line_); // after a huge line
}

void LogParser::process(std::string_view raw) {
    // Most lines of a flood need no cleaning: no copy of them then.
    std::string cleaned;
    const bool dirty = raw.find_first_of(std::string_view("\x1b\r\0", 3)) != std::string_view::npos;
    if (dirty)
        cleaned = clean_line(raw);
    const std::string_view line = dirty ? std::string_view(cleaned) : raw;
    auto lava = parse_lava_line(line);
    if (!lava)
        return console_line(line);
    if (lava->lvl != "target" || !lava->msg)
        return;
    // The message is itself console output: clean it again, it may hold several lines.
    const std::string msg = clean_line(undo_lava_quote_escaping(*lava->msg));
    for (size_t start = 0; start <= msg.size();) {
        const size_t nl = std::min(msg.find('\n', start), msg.size());
        console_line(std::string_view(msg).substr(start, nl - start));
        start = nl + 1;
    }
}

void LogParser::console_line(std::string_view text) {
    if (pending_) {
        if (rejoin(text))
            return;
        flush_pending();
    }
    const size_t at = text.rfind(kFrameMarker);
    if (at == std::string_view::npos)
        return scan_kernel(text);
    // Text before a whole frame is console output; a damaged frame may hide a kernel line.
    scan_kernel(frame(text.substr(at)) ? text.substr(0, at) : text);
}

bool LogParser::frame(std::string_view text) {
    auto fail = [&](const char *reason, std::optional<uint64_t> seq = {}) {
        damage(text, reason, seq);
        return false;
    };
    auto f = split_frame(text);
    if (!f)
        return fail("malformed frame");
    std::string_view after; // console text after the record on its line
    if (crc32_hex(crc32(f->json)) != f->crc) {
        // A kernel message that lands between a record and its newline (the tty sends the
        // line's "\r\n" on its own) leaves the record whole: keep it if its bytes verify.
        const size_t end = object_end(f->json);
        if (end == std::string_view::npos || end == f->json.size() ||
            crc32_hex(crc32(f->json.substr(0, end))) != f->crc) {
            if (unterminated_ || text.size() > kMaxRejoin)
                return fail("crc mismatch", f->seq);
            pending_ = Pending{std::string(text), line_no_}; // the next line decides
            return true;
        }
        after = f->json.substr(end);
        f->json = f->json.substr(0, end);
    }
    json value = too_deep(f->json) ? json(json::value_t::discarded)
                                   : json::parse(f->json, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded())
        return fail("bad json", f->seq);
    const json *v = value.is_object() ? member(value, "v") : nullptr;
    const json *type = value.is_object() ? member(value, "type") : nullptr;
    if (!v || !v->is_number_integer() || !type || !type->is_string())
        return fail("bad record", f->seq); // not an object with integer v and string type
    if (!known_record_version(*v)) { // whole, but of a layout this build cannot read
        damage(text, unknown_version_reason(*v), f->seq);
        return false;
    }
    accept(f->seq, std::string(f->crc), text, std::move(value));
    if (!after.empty()) {
        ++result_.text_after_record;
        scan_kernel(after);
    }
    return true;
}

// A kernel message printed while a record was on its way to the console splits it: the
// line ends with the message, and the record's rest is the next line (perhaps with another
// message after it). The CRC tells where the record stops on the first line and where it
// ends on the next: at each '}' of the next line, run the CRC back from the frame's value
// to the state the first part must leave, and look for a cut of the first line that does.
bool LogParser::rejoin(std::string_view next) {
    const auto f = split_frame(pending_->text);
    if (!f || next.size() > kMaxRejoin || next.find(kFrameMarker) != std::string_view::npos)
        return false;
    const std::string_view first = f->json;
    std::unordered_map<uint32_t, size_t> cut_with_crc; // first[0, cut) has that CRC
    uint32_t head = 0;
    for (size_t cut = 1; cut <= first.size(); ++cut) {
        head = crc32(first.substr(cut - 1, 1), head);
        cut_with_crc.emplace(head, cut);
    }
    const uint32_t want = static_cast<uint32_t>(std::stoul(std::string(f->crc), nullptr, 16));
    size_t tried = 0;
    for (size_t end = next.size(); end > 0 && tried < kMaxRejoinEnds; --end) {
        if (next[end - 1] != '}')
            continue;
        ++tried;
        const auto hit = cut_with_crc.find(crc32_unwind(next.substr(0, end), want));
        if (hit == cut_with_crc.end())
            continue;
        const size_t cut = hit->second;
        const std::string joined = std::string(first.substr(0, cut)).append(next.substr(0, end));
        json value = too_deep(joined) ? json(json::value_t::discarded)
                                      : json::parse(joined, nullptr, /*allow_exceptions=*/false);
        const json *v = value.is_object() ? member(value, "v") : nullptr;
        const json *type = value.is_object() ? member(value, "type") : nullptr;
        if (!v || !v->is_number_integer() || !type || !type->is_string())
            continue;
        const Pending held = std::move(*pending_);
        pending_.reset();
        const uint64_t now = std::exchange(line_no_, held.line);
        if (known_record_version(*v))
            accept(f->seq, std::string(f->crc), held.text, std::move(value));
        else
            damage(held.text, unknown_version_reason(*v), f->seq);
        scan_kernel(first.substr(cut)); // the message that split it
        line_no_ = now;
        if (end < next.size()) {
            ++result_.text_after_record;
            scan_kernel(next.substr(end));
        }
        ++result_.rejoined;
        return true;
    }
    return false;
}

// The held frame did not rejoin: damaged, on its own line, as it would have been at once.
void LogParser::flush_pending() {
    const Pending held = std::move(*pending_);
    pending_.reset();
    const uint64_t now = std::exchange(line_no_, held.line);
    const bool unterminated = std::exchange(unterminated_, false);
    const auto f = split_frame(held.text);
    damage(held.text, "crc mismatch", f ? std::optional<uint64_t>(f->seq) : std::nullopt);
    scan_kernel(held.text);
    unterminated_ = unterminated;
    line_no_ = now;
}

void LogParser::damage(std::string_view text, std::string reason, std::optional<uint64_t> seq) {
    Run &run = *cur_;
    DamagedLine d{line_no_, std::move(reason), excerpt(text), seq};
    if (unterminated_) {
        result_.cut_off = std::move(d);
        return;
    }
    if (run.end.found)
        return run.list(run.after_end, std::move(d));
    run.touch(line_no_);
    run.list(run.damaged, std::move(d));
}

void LogParser::accept(uint64_t seq, std::string crc, std::string_view text, json value) {
    // A header starts a new run unless it repeats this run's own. Damage before any record
    // stays with the run that follows: it may have been that run's header.
    if (seq == 0 && has_type(value, "header") && !cur_->records.empty()) {
        auto first = cur_->records.find(0);
        const bool repeat = first != cur_->records.end() && first->second.crc == crc;
        if (cur_->end.found || !repeat)
            start_run();
    }
    Run &run = *cur_;
    if (run.end.found)
        return run.list(run.after_end,
                        DamagedLine{line_no_, "after end record", excerpt(text), seq});
    if (auto it = run.records.find(seq); it != run.records.end()) {
        const bool same = it->second.crc == crc;
        run.conflict |= !same;
        return run.list(run.duplicates, DuplicateSeq{seq, line_no_, same});
    }
    run.touch(line_no_);
    if (has_type(value, "end"))
        run.note_end(seq, line_no_, value);
    run.records.emplace(seq, Run::Stored{line_no_, std::move(crc), std::move(value)});
}

void LogParser::scan_kernel(std::string_view text) {
    auto event = classify(text);
    if (!event)
        return;
    event->line = line_no_;
    if (++result_.kernel_event_count <= kMaxListed)
        result_.kernel_events.push_back(std::move(*event));
}

// Settles the current run; a complete one replaces the kept run.
void LogParser::close_run() {
    cur_->settle();
    result_.run_statuses.push_back(cur_->status);
    if (cur_->status == LogStatus::complete)
        kept_ = std::move(cur_);
}

void LogParser::start_run() {
    close_run();
    cur_ = std::make_unique<Run>();
    cur_->index = int(result_.run_statuses.size());
}

void LogParser::finish() {
    if (finished_)
        return;
    unterminated_ = !line_.empty() || overlong_;
    if (unterminated_)
        end_line();
    if (pending_)
        flush_pending();
    finished_ = true;
    if (!cur_->empty())
        close_run();
    // The last complete run, else the last run.
    Run *run = kept_ ? kept_.get() : (cur_ && !cur_->empty() ? cur_.get() : nullptr);
    result_.runs_seen = int(result_.run_statuses.size());
    result_.lines = line_no_;
    if (run)
        run->export_to(result_);
}

ParsedLog parse_log(std::string_view whole) {
    LogParser parser;
    parser.feed(whole);
    parser.finish();
    return parser.result();
}

Result<ParsedLog> parse_log_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{"cannot read " + path, errno};
    LogParser parser;
    std::string piece(1 << 20, '\0');
    while (in.read(piece.data(), static_cast<std::streamsize>(piece.size())) || in.gcount() > 0)
        parser.feed(std::string_view(piece.data(), static_cast<size_t>(in.gcount())));
    if (in.bad())
        return Error{"reading " + path, errno};
    parser.finish();
    return parser.result();
}

} // namespace initbench
