// Registers `initbench lava-job` (host/lab/lava_job.h writes the job): 0, or 2 for a bad
// command line or parameters the init would refuse.
#pragma once

namespace CLI {
class App;
}

namespace initbench {

void add_lava_job_command(CLI::App& app);

} // namespace initbench
