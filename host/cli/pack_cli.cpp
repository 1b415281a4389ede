#include "host/cli/pack_cli.h"

#include "host/image/pack.h"

#include <CLI/CLI.hpp>
#include <memory>

namespace initbench {

void add_pack_command(CLI::App& app) {
    auto o = std::make_shared<PackOptions>();
    auto* cmd = app.add_subcommand(
        "pack",
        "Append files and an experiment file to an image (a second cpio; the base is kept)");
    cmd->footer(R"(Exit codes:
  0  image written
  1  failed: unreadable input, a bad experiment file or program, or the image not written
  2  bad command line (a bad --add, --data or --program, or nothing to add))");
    cmd->add_option("--image", o->image, "Base image")->required()->check(CLI::ExistingFile);
    cmd->add_option("--add", o->adds, "LOCAL:/payload/PATH, a file or a directory (repeatable)");
    cmd->add_option("--program", o->programs,
                    "PATH[:NAME]: a program with its shared libraries and loader, run in the guest "
                    "as /payload/bin/NAME (repeatable)");
    cmd->add_option("--data", o->data,
                    "LOCAL:/payload/PATH: a file or directory a program reads (as --add; repeatable)");
    cmd->add_option("--arch", o->arch, "The guest's architecture for --program (default: the image's)")
        ->check(CLI::IsMember({"x86_64", "aarch64"}));
    cmd->add_option("--sysroot", o->sysroot,
                    "Look the libraries and loader of --program up under this directory "
                    "(another architecture's root)")
        ->check(CLI::ExistingDirectory);
    cmd->add_option(
           "--config", o->config,
           "Experiment file (profile lines), applied over the profile and under the kernel "
           "command line")
        ->check(CLI::ExistingFile);
    cmd->add_option("-o,--out", o->out, "Output image")->required();
    // main() returns the code carried by CLI::RuntimeError.
    cmd->callback([o] { throw CLI::RuntimeError(run_pack(*o)); });
}

} // namespace initbench
