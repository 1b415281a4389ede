// compare's CSV output: one row per metric and side.
#include "host/compare/compare_render.h"

#include "common/text.h"

namespace initbench::compare_render {
namespace {

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string csv_number(std::optional<double> x) {
    return x ? format_number(*x, "%.10g") : "";
}

} // namespace

std::string render_csv(const Report& report) {
    std::string out = "metric,group,name,unit,agg,better,side,label,n,mean,stddev,cov,min,max,"
                      "change_pct,interval_lo_pct,interval_hi_pct,p,significant,verdict,direction,detectable_pct,samples_needed\n";
    for (const auto& m : report.metrics)
        for (size_t i = 0; i < m.sides.size(); i++) {
            const auto& s = m.sides[i].summary;
            const Change* c = i ? &m.changes[i - 1] : nullptr;
            std::vector<std::string> f = {m.id,
                                          m.group,
                                          m.name,
                                          m.unit,
                                          std::string(agg_label(m.agg)),
                                          better_name(m.better),
                                          std::to_string(i),
                                          report.sides[i].label,
                                          s ? std::to_string(s->n) : "0",
                                          csv_number(s ? std::optional(s->mean) : std::nullopt),
                                          csv_number(s ? std::optional(s->stddev) : std::nullopt),
                                          csv_number(s ? s->cov : std::nullopt),
                                          csv_number(s ? std::optional(s->min) : std::nullopt),
                                          csv_number(s ? std::optional(s->max) : std::nullopt),
                                          csv_number(c ? c->pct : 0.0),
                                          csv_number(c ? c->ci_lo_pct : std::nullopt),
                                          csv_number(c ? c->ci_hi_pct : std::nullopt),
                                          csv_number(c ? c->p : std::nullopt),
                                          !c || c->kind != ChangeKind::unqualified
                                              ? (c && c->significant ? "1" : "0")
                                              : "", // no verdict: neither
                                          c ? verdict_name(c->verdict) : "base",
                                          c ? kind_name(c->kind) : "",
                                          csv_number(c ? c->detectable_pct : std::nullopt),
                                          c && c->samples_needed ? std::to_string(*c->samples_needed) : ""};
            for (size_t k = 0; k < f.size(); k++)
                out += (k ? "," : "") + csv_field(f[k]);
            out += "\n";
        }
    return out;
}

} // namespace initbench::compare_render
