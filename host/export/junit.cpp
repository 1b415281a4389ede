// JUnit XML as GitLab and Jenkins read it: a test suite per side (its boots' numbers) and per
// comparison ("new vs base": its verdicts), a test case per row of the model. A FAIL is a
// <failure>, a failed run an <error>, SKIP and every verdict that is neither PASS nor FAIL a
// <skipped> that says why; the figures are the case's properties and its output.
#include "host/export/exporters.h"
#include "host/export/xml_writer.h"

#include "common/text.h"

#include <map>

namespace initbench::exporting {

using nlohmann::json;

namespace {

enum class Outcome { passed, failure, error, skipped };

Outcome outcome_of(const Test& t) {
    switch (t.status) {
    case TestStatus::fail: return Outcome::failure;
    case TestStatus::error: return Outcome::error;
    case TestStatus::skip:
    case TestStatus::miss: return Outcome::skipped;
    case TestStatus::pass: return Outcome::passed;
    case TestStatus::done: return t.verdict ? Outcome::skipped : Outcome::passed; // a verdict not given
    }
    return Outcome::passed;
}

std::string figure_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

void write_case(XmlWriter& w, const Test& t, const std::string& path) {
    w.open("testcase", {{"name", t.name}, {"classname", path}, {"time", "0"}});
    w.open("properties");
    if (t.value)
        w.empty("property", {{"name", "value"}, {"value", json(*t.value).dump()}});
    if (!t.unit.empty())
        w.empty("property", {{"name", "unit"}, {"value", t.unit}});
    for (const auto& [key, value] : t.misc)
        w.empty("property", {{"name", key}, {"value", figure_text(value)}});
    w.close();
    const std::string why = t.excerpt.empty() ? t.comment : t.excerpt;
    switch (outcome_of(t)) {
    case Outcome::failure:
        w.open("failure", {{"message", first_line(why)}, {"type", status_name(t.status)}});
        w.text(t.comment + "\n" + why);
        w.close();
        break;
    case Outcome::error:
        w.open("error", {{"message", first_line(why)}, {"type", status_name(t.status)}});
        w.text(why);
        w.close();
        break;
    case Outcome::skipped:
        w.empty("skipped", {{"message", first_line(why)}});
        break;
    case Outcome::passed: break;
    }
    std::string out = t.comment.empty() ? "" : t.comment + "\n";
    for (const auto& [key, value] : t.misc)
        out += key + ": " + figure_text(value) + "\n";
    w.open("system-out");
    w.text(out);
    w.close();
    w.close();
}

struct Counts {
    size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    void add(Outcome o) {
        tests++;
        failures += o == Outcome::failure;
        errors += o == Outcome::error;
        skipped += o == Outcome::skipped;
    }
    XmlWriter::Attributes attributes() const {
        return {{"tests", std::to_string(tests)},
                {"failures", std::to_string(failures)},
                {"errors", std::to_string(errors)},
                {"skipped", std::to_string(skipped)}};
    }
};

} // namespace

std::string junit_document(const Model& model) {
    std::vector<std::string> order; // suites as they first appear
    std::map<std::string, std::vector<const Test*>> suites;
    Counts all;
    for (const Test& t : model.tests) {
        if (!suites.contains(t.suite))
            order.push_back(t.suite);
        suites[t.suite].push_back(&t);
        all.add(outcome_of(t));
    }
    XmlWriter w;
    auto top = all.attributes();
    top.insert(top.begin(), {"name", "initbench"});
    w.open("testsuites", top);
    for (const auto& name : order) {
        Counts c;
        for (const Test* t : suites[name])
            c.add(outcome_of(*t));
        auto attrs = c.attributes();
        attrs.insert(attrs.begin(), {"name", name});
        w.open("testsuite", attrs);
        for (const Test* t : suites[name]) {
            std::string path = "initbench";
            for (const auto& p : t->path)
                path += "." + p;
            write_case(w, *t, path);
        }
        w.close();
    }
    return w.finish();
}

} // namespace initbench::exporting
