// The check that run, bisect-step, ab and lava-job make before they boot or write a job:
// everything the init would refuse as an error record (a misspelled key, a bad value, an
// unknown profile or load, a program the image does not hold) is refused on the host, naming
// its key, so that no boot is spent on it. The guest keeps its own check for a job written by hand.
#pragma once

#include "common/config.h"
#include "host/image/cpio_archive.h"

#include <string>
#include <string_view>
#include <vector>

namespace initbench {

// The programs an experiment starts (load.NAME, load.NAME.setup, cmd, background) that the
// image (with `added`, what a pack adds) would not hold, found as the init finds them: a path
// as it is, a bare name along its PATH. One line per program, with a did-you-mean among the
// names along PATH; none when the image cannot be read.
std::vector<std::string> missing_programs(const Config& config, const std::string& image,
                                          const std::vector<CpioEntry>& added = {});

// The CPUs that `pin` and `load.cpus` name and a guest of `cpus` CPUs lacks, as the init
// would refuse them: any for pin, all of them for load.cpus (which leaves offline ones out).
std::vector<std::string> absent_cpus(const Config& config, unsigned cpus);

// Prints each problem as "initbench WHO: SOURCE: KEY=VALUE: REASON" and a last line on how to
// boot anyway (`bypass`, when the command has a flag for it); true when there is none. With
// `cpus` (the guest's, 0 when unknown, as for a lab's machine) the CPU lists are checked too.
bool settings_accepted(std::string_view who, const std::string& image, const std::vector<std::string>& params,
                       std::string_view bypass = "", unsigned cpus = 0);

} // namespace initbench
