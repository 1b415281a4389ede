// The parsed log as the results document and `initbench parse` show it.
#include "host/results/logparse.h"

#include "common/text.h"

namespace initbench {

using nlohmann::json;

std::string_view to_string(LogStatus status) {
    static constexpr Named<LogStatus> kNames[] = {{LogStatus::complete, "complete"},
                                                  {LogStatus::incomplete, "incomplete"},
                                                  {LogStatus::corrupt, "corrupt"},
                                                  {LogStatus::no_records, "no-records"}};
    return name_of(kNames, status);
}

namespace {

json to_json(const DamagedLine &d) {
    json j = {{"line", d.line}, {"reason", d.reason}, {"excerpt", d.excerpt}};
    if (d.seq)
        j["seq"] = *d.seq;
    return j;
}

json to_json(const EndInfo &e) {
    json j = {{"found", e.found}};
    if (!e.found)
        return j;
    j.update({{"seq", e.seq},
              {"line", e.line},
              {"digest", e.digest},
              {"count_ok", e.count_ok},
              {"digest_ok", e.digest_ok}});
    j["records"] = e.records ? json(*e.records) : json(nullptr);
    return j;
}

template <typename T, typename F> json map_list(const std::vector<T> &items, F f) {
    json out = json::array();
    for (const T &item : items)
        out.push_back(f(item));
    return out;
}

} // namespace

json ParsedLog::summary_json() const {
    json runs = map_list(run_statuses, [](LogStatus s) { return json(to_string(s)); });
    return {
        {"status", to_string(status)},
        {"counts",
         {{"records", records.size()},
          {"damaged", damaged.size()},
          {"missing", missing_count},
          {"duplicates", duplicates.size()},
          {"after_end", after_end.size()},
          {"unlisted", unlisted},
          {"kernel_events", kernel_event_count},
          {"text_after_record", text_after_record},
          {"rejoined", rejoined},
          {"lines", lines}}},
        {"damaged", map_list(damaged, [](const DamagedLine &d) { return to_json(d); })},
        {"missing", missing},
        {"duplicates",
         map_list(
             duplicates,
             [](const DuplicateSeq &d) {
                 return json{{"seq", d.seq}, {"line", d.line}, {"same_content", d.same_content}};
             })},
        {"after_end", map_list(after_end, [](const DamagedLine &d) { return to_json(d); })},
        {"cut_off", cut_off ? to_json(*cut_off) : json(nullptr)},
        {"end", to_json(end)},
        {"runs",
         {{"seen", runs_seen},
          {"kept", run_kept},
          {"statuses", runs},
          {"first_line", first_line},
          {"last_line", last_line}}},
        {"kernel_events", map_list(kernel_events,
                                   [](const KernelEvent &e) {
                                       return json{{"kind", e.kind},
                                                   {"message", e.message},
                                                   {"text", e.text},
                                                   {"line", e.line}};
                                   })},
    };
}

} // namespace initbench
