// A payload command that runs alongside the experiment (initbench.background): whatever
// should happen while the measurements run — a module loaded in the middle of a phase, a
// console flooded with kernel messages, a crash, or another tracer measured against the
// probes. It starts after the phases are planned, before the first phase (or command run),
// and is killed with its whole process group when they are done, before the end record. Its
// output goes to a file, never to the console; `background.record` puts its tail into a
// `background` record.
//
// For a tracer: `background.ready` holds the phases back until the output shows a text (the
// tracer has attached), and `background.window_signal` marks every phase's window in the
// output — a JSON line {"initbench": "window_open"|"window_close", "phase", "round", "t"} —
// and sends the signal right after it (bpftrace prints its maps on SIGUSR1), so that what
// the tracer prints can be told apart window by window. Both marks follow the window's own
// snapshots, and the load runs on until the tracer has answered the close: its answers lag
// the window's edges by about the same time.
#pragma once

#include "common/config.h"
#include "init/console.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/types.h>

namespace initbench {

inline constexpr const char* kBackgroundOutput = "/tmp/initbench-background.out";
// The tail of the output a background record keeps.
inline constexpr size_t kBackgroundRecordTail = 64 * 1024;
inline constexpr double kBackgroundAnswerWait = 2; // seconds

struct BackgroundOptions {
    std::string command; // split and looked up like initbench.cmd; empty: none
    std::string ready;   // text to wait for in the output; empty: no wait
    unsigned ready_port = 0; // or a TCP port to wait for a listener on; 0: none
    double ready_timeout = 600;
    int window_signal = 0; // 0: no marks
    bool record = false;   // a background record when it is stopped
    std::string output_path = kBackgroundOutput;
    // What its records say it is, and its keys: an external load's setup is started this
    // way too (load.NAME.setup, load.NAME.ready).
    std::string what = "background";
    std::string key = "background";
    std::string ready_key = "background.ready"; // its timeout key is this + "_timeout"
};

// The options from the background.* keys.
BackgroundOptions background_options(const Config& config);
// The signal a background.window_signal value names (USR1, USR2, HUP); 0 for none. And back.
int background_signal(const std::string& name);
std::string background_signal_name(int signal);

class Background {
public:
    Background() = default;
    ~Background(); // kills and reaps what still runs
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;

    // Starts the command (nothing to do without one); false, with an error record, when it
    // cannot be started.
    bool start(BackgroundOptions options, Console& console);
    // Waits for the ready text (and the port's listener). False, with an error record, when the
    // command exited first or they did not come in time: then no phase should run.
    bool wait_ready(Console& console);
    // A mark in the output and the window signal to the command (if asked for them).
    void window(const char* event, const std::string& phase, uint64_t round);
    // After a window signal: waits until the command has written more than the mark (its
    // answer) and then nothing for 0.1 s; kBackgroundAnswerWait at most.
    void await_answer();
    // Its process group (the tasks that are not a phase's), 0 when nothing runs.
    pid_t group() const { return pid_; }
    // From the start to the ready text in seconds; -1 before it came (or without one).
    double ready_s() const { return ready_s_; }
    // Kills its process group and reaps it; a warning record when it had failed on its own;
    // the background record when asked for.
    void stop(Console& console);
    // What the background record holds (after stop(): how it ended, and its output).
    nlohmann::json record() const;

private:
    bool reaped_now(); // reaps the command if it has exited; true when it has
    void kill_and_reap();
    std::string output() const;

    BackgroundOptions options_;
    pid_t pid_ = 0;       // while it runs or is unreaped
    pid_t started_ = 0;   // its pid, kept for the record
    bool exited_ = false; // reaped (by itself or by the kill)
    bool exited_before_stop_ = false;
    int status_ = 0;
    double start_time_ = 0; // monotonic seconds at the fork
    double ready_s_ = -1;   // from the start to the ready text; -1 before
    unsigned marks_ = 0;
    off_t after_mark_ = 0; // the output's size after the last mark
};

} // namespace initbench
