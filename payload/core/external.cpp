#include "payload/core/external.h"

#include "common/perf_events.h"
#include "common/text.h"
#include "sys/child.h"

#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

namespace initbench {
namespace {

std::vector<std::unique_ptr<ExternalLoad>>& defined() {
    static std::vector<std::unique_ptr<ExternalLoad>> loads;
    return loads;
}

unsigned one() {
    return 1;
}

// The program is one task as far as the framework can tell; what it forks is its own.
uint64_t one_task(const LoadParams&) {
    return 1;
}

[[noreturn]] void external_work(const WorkerContext& ctx) {
    const ExternalParams& p = ctx.own<ExternalParams>();
    const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int out = ::open(p.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    enter_child({.in = in, .out = out, .err = out}); // a worker already: in its group
    std::vector<char*> argv, env;
    for (const auto& a : p.argv)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : p.env)
        env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);
    // The window opens while the program runs: it times its own work and reports it.
    ctx.ready();
    ::execve(p.program.c_str(), argv.data(), env.data());
    ::dprintf(2, "initbench: cannot run %s: %s\n", p.program.c_str(), std::strerror(errno));
    ::_exit(127);
}

} // namespace

void define_external_loads(const Config& config) {
    auto& loads = defined();
    loads.clear();
    for (const std::string& name : config.family_names("load")) {
        if (config.str("load." + name).empty())
            continue; // only fields: the configuration refused that already
        auto l = std::make_unique<ExternalLoad>();
        l->name = name;
        if (config.source("load." + name + ".clients") != "default")
            l->sweep = "load." + name + ".clients";
        l->op_unit = "program run";
        l->spec = LoadSpec{
            .decl = {.name = l->name,
                     .op_unit = l->op_unit,
                     .sweep = l->sweep,
                     .help = "an external program (load.NAME)"},
            .default_workers = one,
            .tasks = one_task,
            .work = external_work,
        };
        loads.push_back(std::move(l));
    }
}

const LoadSpec* find_external_load(std::string_view name) {
    for (const auto& l : defined())
        if (l->name == name)
            return &l->spec;
    return nullptr;
}

std::vector<std::string> external_load_names() {
    std::vector<std::string> names;
    for (const auto& l : defined())
        names.push_back(l->name);
    return names;
}

const ExternalLoad* find_external(const LoadSpec& spec) {
    for (const auto& l : defined())
        if (&l->spec == &spec)
            return l.get();
    return nullptr;
}

ExternalValues external_values(const Config& config, unsigned clients) {
    ExternalValues v;
    v.duration = format_number(config.seconds("duration") + config.seconds("warmup"));
    const uint64_t workers = config.uint("workers");
    v.cpus = online_cpus();
    v.workers = workers ? unsigned(workers) : v.cpus;
    v.clients = clients;
    return v;
}

LoadParams external_params(const ExternalLoad& load, const Config& config, unsigned clients) {
    LoadParams p;
    p.workers = 1; // the program
    const ExternalValues values = external_values(config, clients);
    ExternalParams own;
    // The key's check refused a command that does not split.
    (void)split_command(substitute(config.str("load." + load.name), values), own.argv);
    own.program = own.argv.empty() ? "" : own.argv[0];
    own.output_path = external_output_path(load.name);
    p.shown = {{"workers", values.workers}}; // what the program was told: {workers}
    p.own = std::move(own);
    return p;
}

ExternalParams* external_params_of(LoadParams& p) {
    return std::any_cast<ExternalParams>(&p.own);
}

const ExternalParams* external_params_of(const LoadParams& p) {
    return std::any_cast<ExternalParams>(&p.own);
}

std::string external_output_path(std::string_view name) {
    return "/tmp/initbench-load-" + std::string(name) + ".out";
}

} // namespace initbench
