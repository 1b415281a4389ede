// `initbench report`: the page. One HTML file with everything inline (styles, gnuplot's
// SVGs), so that it can be mailed, archived or opened offline.
#pragma once

#include "host/report/report.h"

#include <string>

namespace initbench::report {

struct HtmlResult {
    std::string html;
    std::string plot_error; // why the page has no plots ("" when it has them)
};

HtmlResult render_html(const Page& page);

} // namespace initbench::report
