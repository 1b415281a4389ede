// KCIDB v5.3: a checkout and a build per kernel, a test per row of the model. Every id is
// "ORIGIN:" and the model's own id, which comes from the results' content (run ids, build
// ids, metric ids), so the same results exported twice give the same ids: KCIDB merges by id.
#include "host/export/exporters.h"

#include <cmath>
#include <regex>

namespace initbench::exporting {

using nlohmann::json;

Status check_origin(const std::string& origin) {
    if (origin.empty() || !std::regex_match(origin, std::regex("[a-z0-9_]+")))
        return Error{"--origin '" + origin + "': KCIDB's origin is lower-case letters, digits and '_'"};
    return ok();
}

Status check_log_url(const std::string& base) {
    if (!std::regex_match(base, std::regex(R"([a-z][a-z0-9+.-]*://[^\s/]+(/\S*)?)")))
        return Error{"--log-url '" + base + "': not a URL (scheme://host/path)"};
    return ok();
}

Status check_facts(const KernelFacts& f) {
    if (!f.git_commit_hash.empty() && !std::regex_match(f.git_commit_hash, std::regex("[0-9a-f]{40}")))
        return Error{"--git-commit-hash '" + f.git_commit_hash + "': KCIDB wants the full 40 hex digits"};
    if (!f.git_repository_url.empty() && !std::regex_match(f.git_repository_url, std::regex("https://\\S+")))
        return Error{"--git-repository-url '" + f.git_repository_url + "': KCIDB wants an https:// URL"};
    return ok();
}

namespace {

// KCIDB refuses NUL in any string.
std::string no_nul(std::string s) {
    std::erase(s, '\0');
    return s;
}

json figures(const std::vector<Figure>& list) {
    json j = json::object();
    for (const auto& [key, value] : list)
        if (!(value.is_string() && value.get<std::string>().empty()))
            j[key] = value;
    return j;
}

json checkout(const Kernel& k, const std::string& origin) {
    json c = {{"id", origin + ":checkout:" + k.key},
              {"origin", origin},
              {"valid", true},
              {"comment", no_nul("Linux " + k.release + " (" + k.label + ")")},
              {"misc", {{"kernel_release", k.release}, {"build_id", k.build_id}, {"side", k.label}}}};
    const auto& f = k.facts;
    if (!f.git_commit_hash.empty())
        c["git_commit_hash"] = f.git_commit_hash;
    if (!f.git_repository_url.empty())
        c["git_repository_url"] = f.git_repository_url;
    if (!f.git_branch.empty())
        c["git_repository_branch"] = no_nul(f.git_branch);
    if (!f.tree_name.empty())
        c["tree_name"] = no_nul(f.tree_name);
    return c;
}

// The kernel was built before initbench saw it: what the build record holds is what the
// results know of its image. PASS: a kernel that exists and was booted (a boot that failed
// is its test's ERROR, not the build's).
json build(const Kernel& k, const std::string& origin) {
    json b = {{"id", origin + ":build:" + k.key},
              {"checkout_id", origin + ":checkout:" + k.key},
              {"origin", origin},
              {"comment", no_nul(k.release)},
              {"status", "PASS"},
              {"misc", figures({{"kernel_release", k.release},
                                {"build_id", k.build_id},
                                {"kernel_sha256", k.sha256},
                                {"kernel_config_sha256", k.config_sha256}})}};
    if (!k.config_name.empty())
        b["config_name"] = no_nul(k.config_name);
    if (std::regex_match(k.arch, std::regex("[a-z0-9_]+")))
        b["architecture"] = k.arch;
    return b;
}

std::string dotted(const std::vector<std::string>& parts) {
    std::string path = "initbench";
    for (const auto& p : parts)
        path += "." + p;
    return path;
}

json test(const Test& t, const Model& model, const KcidbOptions& o) {
    json j = {{"id", no_nul(o.origin + ":" + t.id)},
              {"build_id", o.origin + ":build:" + model.kernels[t.kernel].key},
              {"origin", o.origin},
              {"path", dotted(t.path)},
              {"status", status_name(t.status)},
              {"misc", figures(t.misc)}};
    if (!t.platform.empty())
        j["environment"] = {{"comment", no_nul(t.platform)}, {"misc", figures(t.environment)}};
    if (!t.start_time.empty())
        j["start_time"] = t.start_time;
    if (!t.comment.empty())
        j["comment"] = no_nul(t.comment);
    if (!t.excerpt.empty())
        j["log_excerpt"] = no_nul(t.excerpt.substr(0, 16384));
    if (!o.log_url.empty() && !t.log_name.empty())
        j["log_url"] = o.log_url + (o.log_url.ends_with('/') ? "" : "/") + t.log_name;
    // KCIDB reads a number only from a test that ran: never from SKIP (or MISS).
    if (t.value && std::isfinite(*t.value) && t.status != TestStatus::skip && t.status != TestStatus::miss) {
        j["number"] = {{"value", *t.value}};
        if (!t.unit.empty())
            j["number"]["unit"] = no_nul(t.unit);
    }
    return j;
}

} // namespace

json kcidb_document(const Model& model, const KcidbOptions& options) {
    json doc = {{"version", {{"major", 5}, {"minor", 3}}},
                {"checkouts", json::array()},
                {"builds", json::array()},
                {"tests", json::array()}};
    for (const auto& k : model.kernels) {
        doc["checkouts"].push_back(checkout(k, options.origin));
        doc["builds"].push_back(build(k, options.origin));
    }
    for (const auto& t : model.tests)
        doc["tests"].push_back(test(t, model, options));
    return doc;
}

} // namespace initbench::exporting
