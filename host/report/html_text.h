// The report page's small pieces of text: a side's colour, HTML escaping, numbers for
// people, a field of a record, a run's header, the experiment that ran, a short hash, a
// histogram bucket's bound in a readable unit.
#pragma once

#include "host/report/report_html.h"

#include <nlohmann/json.hpp>
#include <string>

namespace initbench::report {

std::string colour(size_t side);
std::string esc(const std::string& s);
// Numbers for people: 2 decimals in the usual range, 4 significant digits outside it.
std::string num(double x);
// A field as text ("" when missing or null; a non-string as its JSON).
std::string str(const nlohmann::json& j, const char* key);
// A field, or null.
const nlohmann::json& at(const nlohmann::json& j, const char* key);
const nlohmann::json& header_of(const RunDoc& f);
// The experiment that ran: its profile's (or experiment file's) own description, or else
// the settings it made that differ from the defaults ("phases=fork duration=1").
std::string experiment_text(const nlohmann::json& config);
std::string short_hash(const std::string& h);
// A log2 bucket's lower bound in the histogram's unit, made readable: 262144 ns -> 262 µs.
std::string bucket_label(const std::string& label, const std::string& unit);

} // namespace initbench::report
