#include "host/engine/bisect_inputs.h"

#include "common/text.h"
#include "sys/sys.h"

#include <sstream>

namespace initbench {

std::optional<std::pair<double, int>> signed_amount(const std::string& text, bool percent) {
    auto a = parse_signed_amount(text);
    if (!a || (a->percent && !percent))
        return std::nullopt;
    const int sign = a->sign == '+' || a->sign == '>' ? 1 : a->sign ? -1 : 0;
    return std::pair{a->value, sign};
}

Result<std::vector<std::string>> read_params(const std::string& path) {
    const auto text = read_whole_file(path);
    if (!text)
        return text.error();
    std::istringstream in(text.value());
    std::vector<std::string> words;
    std::string line, word;
    while (std::getline(in, line)) {
        std::istringstream ls(line.substr(0, line.find('#')));
        while (ls >> word)
            words.push_back(word);
    }
    return words;
}

Result<std::vector<RunFile>> load_baseline(const std::vector<std::string>& paths) {
    std::vector<RunFile> runs;
    for (const auto& p : paths) {
        auto r = read_results(p);
        if (!r)
            return r.error();
        runs.push_back(std::move(r.value()));
    }
    return runs;
}

Result<Series> find_metric(const std::vector<RunFile>& runs, const std::string& pattern) {
    std::vector<Series> hits;
    for (auto& s : extract(runs).metrics)
        if (metric_matches(pattern, s.id, s.name))
            hits.push_back(std::move(s));
    if (hits.size() == 1)
        return hits[0];
    if (hits.empty())
        return Error{"no metric matches '" + pattern + "'"};
    std::string names;
    for (const auto& h : hits)
        names += " " + h.id;
    return Error{"'" + pattern + "' matches " + std::to_string(hits.size()) + " metrics:" + names};
}

} // namespace initbench
