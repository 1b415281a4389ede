// What the subcommands that run as CLI11 callbacks share: their exit code and their last
// word on an exception.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string_view>

namespace initbench {

// Runs a subcommand's `run` (which returns its exit code) as its callback: an exception is
// reported as "initbench NAME: what" and exits with `on_exception`; any code but 0 ends the
// program with it.
template <typename Run>
void run_subcommand(std::string_view name, int on_exception, Run run) {
    int rc = on_exception;
    try {
        rc = run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "initbench %.*s: %s\n", int(name.size()), name.data(), e.what());
    }
    if (rc != 0)
        throw CLI::RuntimeError(rc);
}

} // namespace initbench
