#include "common/record_types.h"

#include "common/json_fields.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace initbench {
namespace {

using nlohmann::json;

std::vector<std::string_view> segments(std::string_view name) {
    std::vector<std::string_view> out;
    for (size_t start = 0;;) {
        size_t dot = name.find('.', start);
        out.push_back(name.substr(start, dot == std::string_view::npos ? dot : dot - start));
        if (dot == std::string_view::npos)
            return out;
        start = dot + 1;
    }
}

// Does the concrete name fall under the declaration? A "*" matches one segment; the last
// one only a declared field, where the declaration names them.
bool matches(const MetricDecl& m, std::string_view name) {
    const auto pattern = segments(m.name), concrete = segments(name);
    if (pattern.size() != concrete.size())
        return false;
    std::string_view last_star;
    for (size_t i = 0; i < pattern.size(); i++) {
        if (pattern[i] == "*")
            last_star = concrete[i];
        else if (pattern[i] != concrete[i])
            return false;
    }
    return m.fields.empty() ||
           std::find(m.fields.begin(), m.fields.end(), last_star) != m.fields.end();
}

std::string unit_or_count(std::string unit) { return unit.empty() ? "count" : unit; }

// Versions 1 and 2: the values a declaration names in the record's own fields. A "*" walks
// an object's keys, or a list's entries by their declared name ("#2" for a repeated one,
// none for an entry that could not be measured).
class LegacyReader {
public:
    LegacyReader(const RecordType& type, std::vector<MeasuredValue>& out) : type_(type), out_(out) {}

    void read(const MetricDecl& m, const json& record) {
        decl_ = &m;
        pattern_ = segments(m.name);
        walk(record, 0, "", "", record);
    }

private:
    void walk(const json& at, size_t i, const std::string& name, std::string_view parent,
              const json& holder) {
        if (i == pattern_.size()) {
            if (!at.is_number())
                return;
            out_.push_back({name, at.get<double>(),
                            decl_->unit.empty() ? unit_or_count(json_str(holder, "unit"))
                                                : std::string(decl_->unit),
                            std::string(decl_->better), std::string(decl_->agg), decl_->headline});
            return;
        }
        const std::string prefix = name.empty() ? "" : name + ".";
        const std::string_view seg = pattern_[i];
        if (seg != "*") {
            if (const json* next = json_field(at, std::string(seg).c_str()))
                walk(*next, i + 1, prefix + std::string(seg), seg, at);
            return;
        }
        const bool last_star = std::find(pattern_.begin() + long(i) + 1, pattern_.end(), "*") ==
                               pattern_.end();
        auto allowed = [&](const std::string& key) {
            return !last_star || decl_->fields.empty() ||
                   std::find(decl_->fields.begin(), decl_->fields.end(), key) != decl_->fields.end();
        };
        if (at.is_object()) {
            for (const auto& [key, v] : at.items())
                if (allowed(key))
                    walk(v, i + 1, prefix + entry_label(key), key, at);
        } else if (at.is_array()) {
            auto entry = std::find_if(type_.entries.begin(), type_.entries.end(),
                                      [&](const EntryName& e) { return e.list == parent; });
            if (entry == type_.entries.end())
                return;
            const std::string key(entry->key);
            std::map<std::string, int> seen;
            for (const json& e : at) {
                std::string label = entry_label(json_str(e, key.c_str()));
                const json* supported = json_field(e, "supported");
                if (label.empty() || (supported && supported->is_boolean() && !supported->get<bool>()))
                    continue;
                if (int n = ++seen[label]; n > 1)
                    label += "#" + std::to_string(n);
                walk(e, i + 1, prefix + label, label, e);
            }
        }
    }

    const RecordType& type_;
    std::vector<MeasuredValue>& out_;
    const MetricDecl* decl_ = nullptr;
    std::vector<std::string_view> pattern_;
};

// A "metrics" object: each metric says its unit, better and agg itself; in declared order
// where the type declares them, then any a newer guest added.
void read_metrics_object(const RecordType& type, const json& metrics, std::vector<MeasuredValue>& out) {
    std::vector<std::pair<int, MeasuredValue>> found;
    for (const auto& [name, m] : metrics.items()) {
        std::optional<double> value = m.is_number() ? std::optional<double>(m.get<double>())
                                                    : json_num(m, "value");
        if (!value)
            continue; // a metric that could not be measured is explicit, never a 0
        int order = int(type.metrics.size());
        bool headline = false;
        for (size_t i = 0; i < type.metrics.size(); i++)
            if (matches(type.metrics[i], name)) {
                order = int(i);
                headline = type.metrics[i].headline;
                break;
            }
        found.push_back({order, {name, *value, json_str(m, "unit"), json_str(m, "better"),
                                 json_str(m, "agg"), headline}});
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& f : found)
        out.push_back(std::move(f.second));
}

bool is_number_list(const json& v) {
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number(); });
}

// log2: [[lower bound, count], ...], not empty; linear: an object whose "buckets" are counts.
bool well_formed(HistogramShape shape, const json& v) {
    if (shape == HistogramShape::linear)
        return v.is_object() && v.contains("buckets") && is_number_list(v["buckets"]);
    return v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), [](const json& e) {
               return e.is_array() && e.size() == 2 && is_number_list(e);
           });
}

} // namespace

std::string entry_label(std::string_view name) {
    std::string label(name);
    std::replace(label.begin(), label.end(), '.', '_');
    return label;
}

std::span<const RecordType> record_types() { return record_decls::kRecordTypes; }

const RecordType* find_record_type(std::string_view type, std::string_view kind) {
    for (const RecordType& t : record_types())
        if (t.type == type && t.kind == kind)
            return &t;
    return nullptr;
}

std::string_view kind_field(std::string_view type) {
    return type == "probe" ? "probe" : "kind";
}

const RecordType* record_type_of(const json& record) {
    const std::string type = json_str(record, "type");
    if (type == "probe" || type == "command")
        return find_record_type(type, json_str(record, std::string(kind_field(type)).c_str()));
    return find_record_type(type);
}

const MetricDecl* find_metric(const RecordType& type, std::string_view name) {
    for (const MetricDecl& m : type.metrics)
        if (matches(m, name))
            return &m;
    return nullptr;
}

void RecordBuilder::metric(MetricName name, const json& value,
                           std::initializer_list<std::string_view> entries, std::string_view unit,
                           std::string_view better) {
    std::string concrete;
    auto entry = entries.begin();
    bool complete = true;
    for (std::string_view seg : segments(name.text)) {
        if (!concrete.empty())
            concrete += '.';
        if (seg != "*") {
            concrete += seg;
        } else if (entry != entries.end()) {
            concrete += entry_label(*entry++);
        } else {
            concrete += '*';
            complete = false;
        }
    }
    const MetricDecl* decl = find_metric(type_, concrete);
    if (!complete || entry != entries.end() || !decl) {
        record_["undeclared_metrics"].push_back(concrete);
        return;
    }
    if (!value.is_number() || !std::isfinite(value.get<double>()))
        return;
    json m{{"value", value},
           {"unit", decl->unit.empty() ? unit_or_count(std::string(unit)) : std::string(decl->unit)},
           {"better", std::string(decl->better.empty() ? better : decl->better)},
           {"agg", std::string(decl->agg)}};
    record_["metrics"][concrete] = std::move(m);
}

void RecordBuilder::field(MetricName name, const json& value) {
    record_[std::string(name.text)] = value;
    metric(name, value);
}

bool measures(const RecordType& type) {
    return !type.derived && (type.load_metrics || !type.metrics.empty() || !type.histograms.empty());
}

std::vector<MeasuredValue> record_metrics(const json& record) {
    std::vector<MeasuredValue> out;
    const RecordType* type = record_type_of(record);
    if (!type || type->derived)
        return out;
    if (const json* metrics = json_field(record, "metrics"); metrics && metrics->is_object()) {
        read_metrics_object(*type, *metrics, out);
        return out;
    }
    // A phase without metrics measured nothing, nor did a later record without them.
    if (type->load_metrics || json_num(record, "v").value_or(1) >= 3)
        return out;
    LegacyReader reader(*type, out);
    for (const MetricDecl& m : type->metrics)
        reader.read(m, record);
    return out;
}

std::vector<std::string> record_identity(const json& record) {
    std::vector<std::string> out;
    if (const RecordType* type = record_type_of(record))
        for (std::string_view key : type->identity)
            if (auto s = json_str(record, std::string(key).c_str()); !s.empty())
                out.push_back(std::move(s));
    return out;
}

std::vector<std::pair<std::string, double>> record_dimensions(const json& record) {
    std::vector<std::pair<std::string, double>> out;
    if (const RecordType* type = record_type_of(record))
        for (std::string_view key : type->dimensions)
            if (auto n = json_num(record, std::string(key).c_str()))
                out.emplace_back(std::string(key), *n);
    return out;
}

std::vector<std::pair<const HistogramDecl*, const json*>> record_histograms(const json& record) {
    std::vector<std::pair<const HistogramDecl*, const json*>> out;
    const RecordType* type = record_type_of(record);
    if (!type || type->derived)
        return out;
    for (const HistogramDecl& h : type->histograms) {
        const json* v = json_field(record, std::string(h.field).c_str());
        if (v && well_formed(h.shape, *v))
            out.emplace_back(&h, v);
    }
    return out;
}

} // namespace initbench
