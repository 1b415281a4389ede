// Reading what `initbench export` exports: sides as compare reads them (a file, several joined
// by commas, a directory of *.json), and `ab` output directories, whose plan names the sides
// and whose last look says at which level their verdicts were judged.
#pragma once

#include "host/export/export_model.h"

#include <string>
#include <vector>

namespace initbench::exporting {

struct ReadRequest {
    std::vector<std::string> sides, labels; // labels: empty, or one per SIDE argument
    std::string baseline;                   // "": none, unless an ab directory gives one
    CompareOptions options;                 // for sides that are not an ab directory's
};

// Every side read, every file a results document (failed runs kept: they export as ERROR).
// An Error, before anything is written: a file that is not results, a side with no files,
// a --baseline that names no side.
Result<ExportInput> read_input(const ReadRequest& request);

// One results document and what it says of its boot (the start from the file's time).
Result<Run> read_run(const std::string& path);

// A directory `initbench ab` wrote: its ab.json and runs/.
bool is_ab_directory(const std::string& path);

} // namespace initbench::exporting
