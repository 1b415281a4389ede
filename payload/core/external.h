// External loads: each initbench.load.NAME="PROGRAM ARGS" of the configuration becomes a load
// that phases name like a built-in one. Its one worker, in the load's cgroup and process
// group like any other, becomes the program; the runner (init/experiment.cpp) starts its
// setup, waits for the program to end and takes the metric from its output.
#pragma once

#include "common/config.h"
#include "common/external_load.h"
#include "payload/core/load.h"

#include <string>
#include <vector>

namespace initbench {

// An external load's own parameters (LoadParams::own): the program its one worker becomes,
// with its arguments (placeholders replaced), environment and output file.
struct ExternalParams {
    std::string program, output_path;
    std::vector<std::string> argv, env;
};
// Those of a phase's external load, or null for a built-in load's parameters.
ExternalParams* external_params_of(LoadParams& p);
const ExternalParams* external_params_of(const LoadParams& p);

struct ExternalLoad {
    std::string name;
    std::string sweep; // "load.NAME.clients" when given, else ""
    std::string op_unit;
    LoadSpec spec;     // its name and sweep point into the strings above
};

// Makes a load of every load.NAME in `config`, replacing those of an earlier call; find_load()
// finds them after the built-in ones.
void define_external_loads(const Config& config);
const LoadSpec* find_external_load(std::string_view name);
// The names of the loads define_external_loads() made.
std::vector<std::string> external_load_names();
// The external load a spec belongs to, or null for a built-in load.
const ExternalLoad* find_external(const LoadSpec& spec);
// What the placeholders stand for in a phase with `clients` (0: no clients list).
ExternalValues external_values(const Config& config, unsigned clients);
// The phase's parameters: the command's words with the placeholders replaced. The program's
// path and environment are the caller's to set (the init knows its PATH).
LoadParams external_params(const ExternalLoad& load, const Config& config, unsigned clients);
// Where the program's output goes in the guest.
std::string external_output_path(std::string_view name);

} // namespace initbench
