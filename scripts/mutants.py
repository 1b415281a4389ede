#!/usr/bin/env python3
"""Deliberate semantic breaks, each of which some test must catch.

Copies the source tree to a scratch directory, builds it once (host and the x86_64 guest),
then for each break: applies it, rebuilds, runs the tests named for it, and puts the file
back. Prints a table of the breaks, the tests, and whether they failed as they must, with
the first failure line; exits 1 when a break passed its tests (a hole in the suite).

Run by hand or weekly, not in CI: it builds the tree and boots kernels (about 30 minutes on
two cores).

    scripts/mutants.py                 every break
    scripts/mutants.py NAME...         those breaks
    scripts/mutants.py --list          their names and what they break
    scripts/mutants.py --scratch DIR   keep the scratch tree (and its build) in DIR
    scripts/mutants.py --check BUILD   no build: each break's text is in its file once, and its
                                       tests name some test of BUILD (ctest runs this, lint.mutants)

Each break replaces one exact piece of text, which must occur once in its file: when the code
moves on, the break says so instead of silently testing nothing."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]


@dataclass
class Break:
    name: str
    what: str
    path: str
    old: str
    new: str
    tests: str  # ctest -R regular expression


BREAKS = [
    Break("gate-passes-failed-runs", "compare --fail-on ignores error records and missing metrics",
          "host/cli/compare_cli.cpp",
          "const bool failed = !outcome.fired.empty() || !gate_failures.empty() || (gate && !outcome.missing.empty());",
          "const bool failed = !outcome.fired.empty();",
          r"^CompareCliTest\.Gate"),
    Break("bisect-one-sample", "bisect-step decides from one sample a side (a zero-width interval)",
          "host/compare/bisect_decide.cpp",
          "    if (base.size() == 1 && step.size() == 1) {",
          "    if (false) {",
          r"^BisectDecision\."),
    Break("funclat-counts-whole-duration", "funclat counts a call's duration whole, switched-out time included",
          "bpf/funclat/funclat.bpf.c", "count(h, end.duration - end.switched_out);", "count(h, end.duration);",
          r"^boot\.Probes$"),
    Break("funclat-subtracts-nothing", "funclat records no switched-out time",
          "bpf/funclat/funclat.bpf.c", "h->subtracted_ns += end.switched_out;", "",
          r"^boot\.Probes$"),
    Break("failed-program-keeps-metric", "an external program that failed keeps the metric its output matched",
          "init/phase_record.cpp", "if (regex.empty() || !failure.empty())", "if (regex.empty())",
          r"^boot\.PackedProgramsAsLoads$"),
    Break("report-drops-a-row", "the report's metric tables skip their last row",
          "host/report/report_html.cpp", "        for (const json* m : rows) {\n            html << \"<tr>\"",
          "        for (const json* m : rows) {\n            if (m == rows.back())\n                continue;\n"
          "            html << \"<tr>\"",
          r"^report\.Page$"),
    Break("schema-wakeups-threads-optional", "the wakeups record's schema no longer requires threads",
          "docs/schema/record-probe.schema.json", None, None, r"^schema$"),
    Break("cpu-load-never-sleeps", "cpu.load below 100 spins the whole slice",
          "payload/cpu/cpu.cpp", "if (pct >= 100)", "if (pct >= 1)", r"^LoadEffects\."),
    Break("syscall-load-skips-the-call", "the syscall load counts without making the system call",
          "payload/syscall/syscall.cpp", "::syscall(nr, 0);", "asm volatile(\"\" ::: \"memory\");",
          r"^LoadEffects\."),
    Break("icount-checked-against-the-option-only", "icount's one-CPU check ignores the experiment's machine.cpus",
          "host/engine/boot_plan.cpp", "if (run.boot.icount && run.boot.cpus > 1)", "if (run.boot.icount && o.cpus > 1)",
          r"^boot\.HostRefusals$"),
    Break("ab-boots-another-plan", "every ab boot is booted as the first side's plan",
          "host/engine/ab.cpp", "r.run = sides_[b.side].run;", "r.run = sides_[0].run;",
          r"^AbDriver\."),
    Break("kvm-tried-for-a-foreign-guest", "--accel auto tries KVM for a guest of another architecture",
          "host/boot/boot.cpp", "if (o.boot.arch != host_arch())", "if (false && o.boot.arch != host_arch())",
          r"^boot\.HostRefusalsArm64$"),
    Break("ticks-per-span-off-by-one", "kthread's combine divides by one span more",
          "bpf/kthread/kthread.cpp", 'r.value("ticks", 0.0) / (*span)["count"].get<double>()',
          'r.value("ticks", 0.0) / ((*span)["count"].get<double>() + 1)', r"^Kthread\."),
    Break("tcp-declares-no-sweep", "tcp's declaration loses its sweep key",
          "payload/tcp/load.json", '  "sweep": "tcp.clients",\n', "",
          r"^(PhaseLoads\.|LoadParams\.SweepMakesOnePhasePerValue|Profiles\.SisTbench|boot\.LoadPhases)$"),
    Break("perf-probe-never-made", "the registry's perf maker makes no probe",
          "bpf/perf/perf.cpp", 'if (!config.list("perf").empty()) {', 'if (false && !config.list("perf").empty()) {',
          r"^boot\.LoadCounters$"),
    Break("fork-spin-ignored", "fork.spin_us read but never spun",
          "payload/fork/fork.cpp", "            spin_for(spin_ns);", "            (void)spin_ns;",
          r"^ForkLoad\.SpinAddsItsTimeToEachOperation$"),
    Break("ab-sides-never-differ", "ab sees no initbench.* difference between sides",
          "host/engine/ab_plan.cpp", "    const auto first = settings(sides[0]);",
          '    return "";\n    const auto first = settings(sides[0]);',
          r"^boot\.AbCommandLine$"),
    Break("tcg-thread-each-at-host-cpus", "a TCG thread per vCPU when vCPUs == host CPUs",
          "host/boot/qemu.cpp", "spec.cpus >= spec.host_cpus", "spec.cpus > spec.host_cpus",
          r"^(QemuArgv\.MachineTopologyAndManyCpus|boot\.MmCidProfile)$"),
    Break("schema-pattern-ignores-fields", "a metric's '*' with declared fields generated as any name",
          "host/reference/schema_defs.cpp", "if (i + 2 == segments.size() && !m.fields.empty()) {", "if (false) {",
          r"^schema$"),
    Break("schema-probe-names-by-hand", "record-probe's probe names written by hand, not generated",
          "docs/schema/record-probe.schema.json", '"$ref": "defs.schema.json#/$defs/probe_name"',
          '"enum": ["funclat", "kthread", "perf", "schedstat", "softirq", "span", "task_storage_churn", "wakeups"]',
          r"^walkthrough$"),
    Break("reference-skips-schema", "`ninja reference` writes docs/keys.md but not the schema's definitions",
          "host/CMakeLists.txt",
          "  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/schema-defs.py $<TARGET_FILE:initbench-reference>\n",
          "", r"^walkthrough$"),
    Break("microvm-tsc-doubled", "microvm's kernel told twice the TSC's frequency",
          "host/boot/qemu.cpp", "std::to_string(*spec.tsc_khz)", "std::to_string(*spec.tsc_khz * 2)",
          r"^boot\.Microvm$"),
    Break("funclat-slot-not-rewritten", "funclat's entry leaves a thread's kept slot as it was",
          "bpf/funclat/funclat_calls.bpf.h", "    *slot = (struct call){.start = bpf_ktime_get_ns(),", "    (struct call){.start = bpf_ktime_get_ns(),",
          r"^(FunclatCalls\.|boot\.(DefaultProfile|Probes)$)"),
    Break("floor-entry-hooks-return", "floor's entry:FUNCTION hooks the return as well",
          "bpf/floor/floor.cpp", "        return {Target::Kind::entry, std::string(value.substr(6))};",
          "        return {Target::Kind::entry_and_return, std::string(value.substr(6))};",
          r"^boot\.ProbeFallbacks$"),
    Break("floor-ignores-attach", "the floor probe always attaches by fentry",
          "bpf/floor/floor.cpp", "attach_functions({target_.name}, mode,", 'attach_functions({target_.name}, std::string("fentry"),',
          r"^boot\.ProbeFallbacks$"),
    Break("load-params-first-range", "two loads showing one name: the schema keeps the first one's maximum",
          "host/reference/schema_defs.cpp", '    p["maximum"] = std::max(p["maximum"], more["maximum"]);\n', "",
          r"^(schema|LoadParams\.SchemaTakesWhatEveryKeyAllows)$"),
    Break("config-error-without-key", "a configuration error's line leaves out the key it refused",
          "common/config.cpp", "    std::string what = value.empty() ? key : key + \"=\" + value;",
          "    std::string what = value;", r"^fuzz\.short$"),
    Break("wakeups-lookup-inverted", "wakeups adds a task to its sets only when it is there already",
          "bpf/wakeups/wakeups_sets.bpf.h", "    if (bpf_map_lookup_elem(set, key))\n        return;",
          "    if (!bpf_map_lookup_elem(set, key))\n        return;", r"^boot\.(Probes|WakeupsUnderThreads)$"),
    Break("funclat-switch-swapped", "funclat's BTF sched_switch takes next for prev",
          "bpf/funclat/funclat_switch.bpf.c", "    account_switch(prev->pid, next->pid, preempt);",
          "    account_switch(next->pid, prev->pid, preempt);", r"^boot\.Probes$"),
    Break("log2-slot-unclamped", "the log2 slot of a value above the last slot is not clamped to it",
          "bpf/core/log2_slot.bpf.h", "    if (slot >= slots)\n        slot = slots - 1;\n", "",
          r"^Log2Slot\."),
    Break("bisect-baseline-kernel-ignored", "bisect-step boots --baseline-kernel but judges against the files",
          "host/engine/bisect_step.cpp",
          "    judged.paired = boots.baseline.has_value();\n    if (boots.baseline)\n        judged.baseline = boots.bases;\n",
          "    judged.paired = boots.baseline.has_value();\n", r"^boot\.BisectStepMoreBoots$"),
    Break("rpath-not-inherited", "a library's libraries are not searched in the DT_RPATH of those that loaded it",
          "host/image/elf_deps.cpp", "            found.inherited_rpath = search.rpath_chain(obj, origin);\n", "",
          r"^PackPrograms\.RpathIsInheritedRunpathIsNot$"),
    Break("funclat-slot-owner-unchecked", "funclat times a return against the call in its slot, whichever thread began it",
          "bpf/funclat/funclat_calls.bpf.h", "    return c && c->tid == tid && c->start ? c : 0;",
          "    return c && c->start ? c : 0;", r"^FunclatCalls\."),
    Break("funclat-displaced-uncounted", "a call that loses its slot to another thread is not counted as missed",
          "bpf/funclat/funclat_calls.bpf.h", "    int displaced = slot->start && slot->tid != tid;",
          "    int displaced = 0;", r"^FunclatCalls\."),
    Break("wakeups-beyond-arrays-ignored", "a woken thread whose id is above the arrays (pid_max raised) is not counted",
          "bpf/wakeups/wakeups_seen.bpf.h", "        add(&threads, &pid, c);\n        return 1;", "        return 0;",
          r"^(WakeupsSeen\.|boot\.WakeupsUnderThreads$)"),
    Break("wakeups-mark-ignores-mm", "a thread seen once is never looked at again, so an exec's new mm goes uncounted",
          "bpf/wakeups/wakeups_seen.bpf.h", "    if (*slot == mark)", "    if (*slot)", r"^WakeupsSeen\."),
    Break("wakeups-arrays-not-cleared", "the woken-id arrays are not cleared when a phase begins",
          "bpf/wakeups/wakeups.cpp", "            clear(sets_.thread_mm->words());", "", r"^boot\.WakeupsUnderThreads$"),
    Break("cpus-unchecked-on-host", "run boots with load.cpus or pin naming CPUs the guest will not have",
          "host/cli/run_cli.cpp", '"--no-host-check boots anyway", run.boot.cpus))', '"--no-host-check boots anyway", 0))',
          r"^boot\.HostRefusals$"),
    Break("load-cpus-offline-kept", "the init keeps load.cpus entries that are not online (no warning, no error)",
          "init/phase_plan.cpp", "if (std::find(online.begin(), online.end(), c) != online.end())", "if (true)",
          r"^boot\.(BadParameters|LoadLimits)$"),
    Break("params-file-error-unnamed", "bisect-step skips on an unreadable parameters file without saying why",
          "host/engine/bisect_step.cpp", 'bisect_say("skip: cannot read the parameters file: " + words.error().message());',
          'bisect_say("skip: cannot read the parameters file " + cli.params_file);', r"^boot\.BisectStepExitCodes$"),
    Break("wall-clock-boots-at-once", "ab's -j default on the wall clock is a boot per host CPU, as under icount",
          "host/engine/ab_plan.cpp", 'return {icount ? std::max<unsigned>(1, unsigned(host_cpus / std::max(1u, guest_cpus))) : 1, ""};',
          'return {std::max<unsigned>(1, unsigned(host_cpus / std::max(1u, guest_cpus))), ""};',
          r"^Sequential\.BootsAtOnceByClock$"),
    Break("wall-clock-boots-greedy", "ab's boots at once on the wall clock take whichever CPU is free (one side can keep the slow one)",
          "host/engine/ab.cpp", '    const bool fixed_slots = cli.jobs > 1 && cli.boot.clock != "icount";',
          "    const bool fixed_slots = false;", r"^boot\.AbInterleaved$"),
    Break("params-file-unreadable-is-empty", "bisect-step reads an unreadable parameters file (or a directory) as no parameters, and boots",
          "host/engine/bisect_inputs.cpp", "    if (!text)\n        return text.error();\n    std::istringstream in(text.value());",
          "    std::istringstream in(text ? text.value() : std::string());", r"^boot\.BisectStepExitCodes$"),
    Break("output-unchecked-before-boot", "run boots before finding that --out or --log cannot be written",
          "host/cli/run_cli.cpp", "if (auto s = out.empty() ? ok() : output_writable(out); !s) {",
          "if (auto s = ok(); !s) {", r"^boot\.HostRefusals$"),
    Break("output-link-replaced", "an output path that is a link (or a device) is replaced by a file",
          "host/base/output_file.cpp", "!ec && fs::exists(st) && !fs::is_regular_file(st))", "false)",
          r"^OutputFile\."),
    Break("ab-drops-early-boots", "ab keeps a boot only when every boot before it on its side has ended",
          "host/engine/ab.h", "        early_[index] = std::move(path);",
          "        if (index != done_.size() + 1) return;\n        early_[index] = std::move(path);",
          r"^Sequential\.BootsThatEndOutOfOrderAllCount$"),
    Break("wall-clock-judged-by-welch", "wall-clock samples are judged by Welch's t-test, as icount's are",
          "host/compare/compare_judge.cpp", '    return clock == "icount" ? Method::welch : Method::permutation;',
          "    return Method::welch;",
          r"^(Verdict\.ConstantSidesAreDecidedExactly|Render\.TextLooksLikeMmtests)$"),
    Break("permutation-misses-the-observed-split", "the permutation test counts only splits farther apart than the one observed",
          "host/compare/stats.cpp", "    auto counts = [&] { return std::fabs(weighted_difference(strata, sums)) >= at_least; };",
          "    auto counts = [&] { return std::fabs(weighted_difference(strata, sums)) > observed; };",
          r"^Permutation\.CountsEverySplit$"),
    Break("permutation-across-host-cpus", "compare permutes over all splits though the boots ran on two host CPUs",
          "host/compare/compare_judge.cpp",
          "    auto t = strata.given() ? stats::permutation_test(base, next, strata.base, strata.next)",
          "    auto t = false ? stats::permutation_test(base, next, strata.base, strata.next)",
          r"^(Verdict\.BootsOnTwoHostCpusArePermutedWithinEach|boot\.AbInterleaved)$"),
    Break("host-cpus-never-strata", "compare never takes the host CPU sets as strata",
          "host/compare/compare_sides.cpp", "            report.strata.assign(all.begin(), all.end());",
          "            (void)all;", r"^(Verdict\.BootsOnTwoHostCpusArePermutedWithinEach|boot\.AbInterleaved)$"),
    Break("strata-odometer-stops", "the exact stratified test walks the first stratum's splits only",
          "host/compare/stats.cpp", "            for (size_t s = 0; s < strata.size() && !more; s++)",
          "            for (size_t s = 0; s < 1 && !more; s++)", r"^Permutation\.WithinHostCpusFindsWhatTheirGapHides$"),
    Break("strata-mirror-always", "the stratified smallest p counts a mirror split for uneven strata",
          "host/compare/stats.cpp", "        mirrored = mirrored && s.a == s.b;", "        mirrored = true;",
          r"^Permutation\.SmallestPWithinHostCpus$"),
    Break("ab-strata-ignored", "ab plans its first look as if the test permuted over all splits",
          "host/engine/ab_plan.cpp",
          "    return fixed_slots ? std::max<size_t>(1, std::set<std::vector<unsigned>>(slots.begin(), slots.end()).size()) : 1;",
          "    return 1;", r"^Sequential\.LooksEveryStepBoots$"),
    Break("equivalence-over-all-cpus", "the equivalence test judges the spread over all host CPUs though the test permutes within each",
          "host/compare/compare_judge.cpp",
          "             : strata.given() ? stats::welch(base, next, strata.base, strata.next, level)\n",
          "             : false ? stats::welch(base, next, strata.base, strata.next, level)\n",
          r"^Verdict\.BootsOnTwoHostCpusArePermutedWithinEach$"),
    Break("stratified-welch-unweighted", "Welch's stratified test sums the strata's differences without their weights",
          "host/compare/stats.cpp", "        diff += s.weight * (mb - ma);", "        diff += mb - ma;",
          r"^Welch\.WithinHostCpusTakesTheirLevelsOut$"),
    Break("bisect-boots-float", "bisect-step leaves its boots to float over the host CPUs",
          "host/engine/bisect_step.cpp",
          "    if (const auto slot = host_cpu_slots(1, run.value().boot.cpus, allowed_host_cpus())[0]; !slot.empty())",
          "    if (const std::vector<unsigned> slot; !slot.empty())", r"^boot\.BisectStepMoreBoots$"),
    Break("bisect-pins-the-build", "bisect-step pins itself before the build, which then runs on one CPU",
          "host/engine/bisect_step.cpp", "    if (int rc = run_build(cli); rc != kBisectGood)",
          "    if (int rc = (pin_to_host_cpus({allowed_host_cpus().back()}), run_build(cli)); rc != kBisectGood)",
          r"^boot\.BisectStepMoreBoots$"),
    Break("equivalence-no-fallback", "a host CPU set with one boot a side leaves a change with no spread at all",
          "host/compare/compare_judge.cpp",
          "    if (!w && strata.given() && !paired) // a stratum with one sample a side: the spread over all",
          "    if (false) // a stratum with one sample a side: the spread over all",
          r"^Verdict\.BootsOnTwoHostCpusArePermutedWithinEach$"),
    Break("large-samples-over-all-cpus", "beyond 50 boots a side the Welch fallback judges over all host CPUs",
          "host/compare/compare_judge.cpp", "    if (strata.given())\n        if (auto w = stats::welch(base, next, strata.base",
          "    if (false)\n        if (auto w = stats::welch(base, next, strata.base",
          r"^Permutation\.LargeSamplesStayWithinHostCpus$"),
    Break("others-never-measured", "results documents never say how much other work ran beside the boot",
          "host/boot/boot.cpp", "{\"others_busy_cpus\", a.others_busy_cpus ? nlohmann::json(*a.others_busy_cpus) : nlohmann::json()}",
          "{\"others_busy_cpus\", nlohmann::json()}", r"^boot\.DefaultProfile$"),
    Break("others-count-qemu", "QEMU's own CPU time is counted as other work on the host",
          "host/base/host_load.cpp", "    const double own = child_cpu_s + (after.self_cpu_s - before.self_cpu_s);",
          "    const double own = after.self_cpu_s - before.self_cpu_s;",
          r"^HostLoad\.OtherWorkIsTheBusyTimeLessTheBootsOwn$"),
    Break("child-cpu-unmeasured", "run_child leaves the child's CPU time unmeasured",
          "host/base/process.cpp",
          "    out.cpu_s = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +\n                double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;",
          "    out.cpu_s = -1;",
          r"^HostLoad\.RunChildRecordsTheChildsCpuTime$"),
    Break("ops-unstamped", "a worker's count() no longer marks when its operation ended",
          "payload/core/load.h",
          "        slot->last_op_ns.store(now_ns(), std::memory_order_relaxed);\n",
          "",
          r"^LoadGroup\.MarksWhenEachWorkersLastOperationEnded$"),
    Break("start-unstamped", "ready() no longer marks the worker's start",
          "payload/core/load.h",
          "        slot->last_op_ns.compare_exchange_strong(never, now_ns(), std::memory_order_relaxed);\n",
          "        (void)never;\n",
          r"^LoadGroup\.MarksWhenEachWorkersLastOperationEnded$"),
    Break("rate-over-the-window", "ops_per_s counts operations over the window again, cut operations and all",
          "payload/core/load_group.cpp",
          "        spans.push_back(timed ? double(close[i].last_op_ns - open[i].last_op_ns) * 1e-9 : window_s);",
          "        spans.push_back(timed ? window_s : window_s);",
          r"^OpSpans\.WholeOperationsOverTheTimeTheyTook$"),
    Break("paired-change-of-the-means", "--method paired shows the change of the sides' means, not the pairs' ratio it tested",
          "host/compare/compare_judge.cpp", "            c.pct = std::expm1(w.value().diff) * 100;", "            c.pct = c.pct;",
          r"^PairedCompare\.PairsSeeThroughTheHostsDriftWhereTheSidesSpreadCannot$"),
    Break("paired-gap-shifts-pairs", "--method paired pairs the runs that have a metric, so a gap on each side shifts the pairs",
          "host/compare/compare_sides.cpp", "        if (present != side.run_ids.size()) {", "        if (false) {",
          r"^PairedCompare\.PairsSeeThroughTheHostsDriftWhereTheSidesSpreadCannot$"),
    Break("bisect-not-worse-wrong-side", "bisect-step's one-sided test faces the good side of the limit",
          "host/compare/bisect_decide.cpp", "        const double p = stats::one_sided_p(w.value(), limit, bad_pct < 0);",
          "        const double p = stats::one_sided_p(w.value(), limit, bad_pct > 0);",
          r"^BisectDecision\.DifferentTheBadWayIsBadSameIsGoodUnknownSkips$"),
    Break("one-sided-p-two-sided", "the one-sided test's p is doubled, as a two-sided test's",
          "host/compare/stats.cpp", "    return above ? boost::math::cdf(boost::math::complement(dist, t)) : boost::math::cdf(dist, t);",
          "    return 2 * (above ? boost::math::cdf(boost::math::complement(dist, t)) : boost::math::cdf(dist, t));",
          r"^Equivalence\.OneSidedTestAgainstTheTTable$"),
    Break("step-number-per-boot", "bisect-step's --save-dir number is chosen again for every boot, splitting a step's boots over several",
          "host/engine/step_boots.cpp", "    if (!cli.save_dir.empty() && number == 0)", "    if (!cli.save_dir.empty())",
          r"^boot\.BisectStepMoreBoots$"),
    Break("paired-untrimmed", "the paired test of bisect-step's pairs trims nothing: one slow boot holds a good step back",
          "host/compare/bisect_decide.h", "inline constexpr double kPairedTrim = 0.2;", "inline constexpr double kPairedTrim = 0;",
          r"^BisectDecision\.PairedBoots(SeeThroughOneSlowBootAndADriftingHost|AtTheLimitOrTooFewAreNeverGood)$"),
    Break("trim-not-winsorized", "the trimmed test's spread is of the kept pairs alone, not the winsorized ones",
          "host/compare/stats.cpp", "        ratios[i] = ratios[g];", "        ratios[i] = ratios[i];",
          r"^Paired\.TrimmedMatchesYuensTestAndShrugsOffOneWildPair$"),
    Break("paired-good-wrong-side", "the paired test of a good step faces the good side of the limit",
          "host/compare/bisect_decide.cpp",
          "    const double p_good = stats::one_sided_p(w.value(), bound, bad_pct < 0);",
          "    const double p_good = stats::one_sided_p(w.value(), bound, bad_pct > 0);",
          r"^BisectDecision\.PairedBoots(SeeThroughOneSlowBootAndADriftingHost|AtTheLimitOrTooFewAreNeverGood)$"),
    Break("paired-bad-on-different-alone", "bisect-step's paired boots are bad on the two sides' DIFFERENT alone, without the paired test",
          "host/compare/bisect_decide.cpp", "    if (different && p_bad < alpha)", "    if (different)",
          r"^BisectDecision\.PairedBoots(SeeThroughOneSlowBootAndADriftingHost|AtTheLimitOrTooFewAreNeverGood)$"),
    Break("paired-two-wall-pairs", "bisect-step's paired test decides from 2 wall-clock pairs",
          "host/compare/bisect_decide.cpp", "    if (step.size() < 3 && !deterministic)", "    if (false)",
          r"^BisectDecision\.PairedBoots(SeeThroughOneSlowBootAndADriftingHost|AtTheLimitOrTooFewAreNeverGood)$"),
    Break("paired-baseline-boot-aborts", "a boot of the baseline kernel beside the step without the metric aborts the bisection",
          "host/compare/bisect_decide.cpp", "        if (paired)\n            return final(kBisectSkip,", "        if (false)\n            return final(kBisectSkip,",
          r"^BisectDecision\.ABaselineBootWithoutTheMetricIsASkipWhenBootedBesideTheStep$"),
    Break("signed-ranks-ignored", "bisect-step's paired boots are bad only when DIFFERENT, never by the pairs' signed ranks",
          "host/compare/bisect_decide.cpp", "    if (p_bad < alpha && ranks && ranks.value() < alpha)", "    if (false)",
          r"^BisectDecision\.SignedRanksDecideABadStepWhileTheHostSlowsDown$"),
    Break("signed-ranks-alone", "bisect-step's paired boots are bad by the pairs' signed ranks without the paired test",
          "host/compare/bisect_decide.cpp", "    if (p_bad < alpha && ranks && ranks.value() < alpha)", "    if (ranks && ranks.value() < alpha)",
          r"^BisectDecision\.SignedRanksDecideABadStepWhileTheHostSlowsDown$"),
    Break("signed-ranks-untied", "the signed-rank test ranks tied differences apart",
          "host/compare/signed_rank.cpp", "            rank2[order[k]] = i + 1 + j;", "            rank2[order[k]] = 2 * (k + 1);",
          r"^SignedRank\.TiesShareTheirMeanRank$"),
    Break("idle-window-silent", "a round without an operation gets no warning, only its rate of 0",
          "init/phase_record.cpp", "            !idle.empty())\n            console_.warning", "            false)\n            console_.warning",
          r"^boot\.TruncatedLog$"),
    Break("idle-window-programs", "a program's phase, which counts no operations, is warned of as idle",
          "init/phase_record.cpp", "    if (!part.external) {\n        std::optional<double> cpu_s;", "    if (true) {\n        std::optional<double> cpu_s;",
          r"^boot\.PackedProgramsAsLoads$"),
    Break("baseline-kernel-unpaired", "bisect-step's boots beside a --baseline-kernel are judged as two sides, not as pairs",
          "host/engine/bisect_step.cpp", "    judged.paired = boots.baseline.has_value();", "    judged.paired = false;",
          r"^boot\.BisectStepMoreBoots$"),
    Break("bisect-setup-unchecked", "bisect-step starts a bisection whose baseline and boot budget can never decide",
          "host/engine/bisect_step.cpp", "        if (auto can = can_decide(cli, p, base_metric.value()); !can)",
          "        if (auto can = can_decide(cli, p, base_metric.value()); false)",
          r"^boot\.(ReadmeBisect|BisectStepMoreBoots)$"),
    Break("bisect-rounds-as-samples", "bisect-step takes the rounds of one boot as independent samples",
          "host/compare/bisect_decide.cpp", "    options.unit = SampleUnit::run;", "    options.unit = SampleUnit::auto_;",
          r"^BisectDecision\.BootsNotRoundsAreTheSamples$"),
    Break("bisect-measured-change-unsaid", "a good step whose change was measured inside the limit does not say so",
          "host/compare/bisect_decide.cpp", "    if (!shown)\n        return \"\";", "    if (true)\n        return \"\";",
          r"^(BisectDecision\.AGoodStepWithAMeasuredChangeSaysSo|boot\.ReadmeBisect)$"),
    Break("step-reach-ignores-the-limit", "the setup check takes any baseline's spread as able to decide",
          "host/compare/step_budget.cpp", "    v.decides = v.reach_pct < limit;", "    v.decides = true;",
          r"^BisectSetup\."),
    Break("bisect-bad-end-unchecked", "initbench bisect bisects a range whose bad end is not bad by its rule",
          "host/cli/bisect_run.cpp", "    if (!end_is(rc, kBisectBad, \"bad\", r.bad))", "    if (false)",
          r"^boot\.ReadmeBisect$"),
    Break("gate-passes-the-base-again", "compare --fail-on passes a side whose runs are all the base side's",
          "host/compare/compare_rules.cpp", "        if (auto again = base_again(sides[0], sides[i]))",
          "        if (auto again = base_again(sides[0], sides[i]); false)",
          r"^CompareCliTest\.GateFailsWhenASideIsTheBaseAgain$"),
    Break("include-against-the-order", "compare/ includes boot/, which its library does not link",
          "host/compare/stats.cpp", '#include "host/compare/stats.h"\n', '#include "host/compare/stats.h"\n#include "host/boot/boot.h"\n',
          r"^lint\.includes$"),
    Break("pack-script-unexplained", "pack --program on a script says only 'not an ELF file', not what to pack",
          "host/image/elf_deps.cpp", '    if (!head.starts_with("#!"))', '    if (true)',
          r"^PackPrograms\.ClearErrors$"),
    Break("look-level-unexplained", "ab's text prints a look's level with no word on why it is not --confidence",
          "host/compare/compare_render.cpp", "    if (o.look)\n", "    if (false)\n",
          r"^Render\.ALooksLevelIsExplainedWhereItIsPrinted$"),
    Break("ab-plan-difference-whole", "ab refuses another plan's directory with the whole differing list, not the field",
          "host/engine/ab_plan.cpp", "    } else if (was.is_array() && now.is_array() && was.size() == now.size()) {",
          "    } else if (false) {", r"^(AbPlan\.AnotherPlanInTheDirectoryNamesTheFieldsThatDiffer|boot\.AbInterleaved)$"),
    Break("choices-keep-left-out", "a command line's choices from a table keep the names left out (ab would take --method threshold)",
          "common/text.h", "        if (std::find(left_out.begin(), left_out.end(), n.value) == left_out.end())",
          "        if (true)", r"^Text\.EnumNamesAsChoices$"),
    Break("paired-differences-unlogged", "the paired test takes differences, not log ratios",
          "host/compare/stats.cpp", "        ratios.push_back(std::log(b[i] / a[i]));", "        ratios.push_back(b[i] - a[i]);",
          r"^Paired\.LogRatiosMatchRsPairedSleepExample$"),
    Break("busy-host-unwarned", "compare says nothing of runs that shared the host with other work",
          "host/compare/compare_checks.cpp", "    if (busy.empty())\n        return \"\";",
          "    if (true)\n        return \"\";",
          r"^Compare\.WarnsOfRunsBesideOtherWorkOnTheHost$"),
    Break("busy-host-warned-under-icount", "compare warns of other work on the host under icount, where it changes nothing measured",
          "host/compare/compare_checks.cpp", "            if (run.clock != \"wall\" || !run.others_busy_cpus)",
          "            if (!run.others_busy_cpus)", r"^Compare\.WarnsOfRunsBesideOtherWorkOnTheHost$"),
    Break("permutation-looks-from-two", "ab's first permutation look is at 2 boots a side, where it cannot reject",
          "host/compare/sequential.cpp",
          "        if (stats::permutation_min_p(sizes) < stats::look_alpha(alpha, 1, plan.looks(), rho))",
          "        if (n > 0)", r"^Sequential\.PermutationLooksStartWhereTheTestCanReject$"),
    Break("ab-boots-unpinned", "ab starts its boots without their host CPUs",
          "host/engine/ab.cpp", "        r.host_cpus = host_cpus;", "        (void)host_cpus;", r"^boot\.AbInterleaved$"),
    Break("lzma-error-as-a-number", "a corrupt xz or lzma payload is reported by liblzma's number alone",
          "host/boot/decompress.cpp", "            return Error{std::string(format) + \": \" + lzma_reason(rc)};",
          "            return Error{std::string(format) + \": liblzma error \" + std::to_string(rc)};",
          r"^KernelImage\.CorruptPayloadIsAnError$"),
    Break("yaml-utf8-unchecked", "a lava-job value that is not UTF-8 reaches libyaml unchecked",
          "host/lab/yaml_writer.cpp", "    if (!valid_utf8(text))", "    if (false)",
          r"^LavaJob\.AValueThatIsNotUtf8IsRefusedByName$"),
    Break("load-json-key-fields-unchecked", "a misspelled field of a key in a load.json is dropped without a word",
          "cmake/Catalog.cmake",
          '  _initbench_json_only("${key}" ${file} "name;type;default;min;max;choices;items;shown_as;help")\n', "",
          r"^catalog\.LoadJson$"),
    Break("load-json-list-bounds-dropped", "a load.json list's min and max do not reach its key",
          "cmake/Catalog.cmake", '    set(row "count_list_key(${name}, ${def}, ${min}, ${max}, ${help})")',
          '    set(row "plain_key(${name}, Kind::list, ${def}, ${help})")', r"^catalog\.LoadJson$"),
    Break("count-list-items-unchecked", "a list of counts takes items outside its range",
          "common/config_values.cpp", "why.empty() && spec.umax > 0", "why.empty() && false",
          r"^LoadKeys\.RefusedValues$"),
    Break("flag-probe-never-made", "a probe made by its flag (softirq, schedstat) is never made",
          "bpf/core/probe.cpp", "} else if (spec.make_on_flag && config.flag(spec.name)) {", "} else if (false) {",
          r"^(ProbeSpec\.EachKindIsMadeWhenTheConfigurationAsksForIt|boot\.Probes)$"),
    Break("percentile-metrics-dropped", "the percentiles of a log2 histogram are in the record but not its metrics",
          "bpf/core/log2.cpp", "        b.metric(name, pct.value(", "        if (false) b.metric(name, pct.value(",
          r"^boot\.Probes$"),
    Break("ab-spends-no-alpha", "every look of ab tests at --confidence, not at the level alpha spending allows there",
          "host/engine/ab.cpp", "o.confidence = 1 - look.alpha;", "o.confidence = cli_.confidence;",
          r"^AbDriver\."),
    Break("ab-undecided-exits-decided", "ab at --max-boots with a metric UNKNOWN exits 0",
          "host/engine/ab.cpp", "return decided ? kAbDecided : kAbUndecided;", "return kAbDecided;",
          r"^AbDriver\."),
    Break("step-budget-spent-is-good", "a step still undecided at --max-boots exits good, not skip",
          "host/engine/bisect_step.cpp", "            return conclude(boots, d);",
          "            return d.final || d.exit_code != kBisectSkip ? conclude(boots, d) : int(kBisectGood);",
          r"^StepDriver\."),
    Break("gate-missing-metric-passes", "compare --fail-on passes a clean side that lacks the metric a rule names",
          "host/cli/compare_cli.cpp",
          "const bool failed = !outcome.fired.empty() || !gate_failures.empty() || (gate && !outcome.missing.empty());",
          "const bool failed = !outcome.fired.empty() || !gate_failures.empty();",
          r"^CompareCliTest\.GateFailsOnAMissingMetricAlone$"),
    Break("probe-cost-cumulative", "a probe's cost in a window is its programs' counts at the window's close, not what they grew by in it",
          "bpf/core/window_cost.cpp",
          "const uint64_t p_runs = last[p].runs - first[p].runs, p_ns = last[p].ns - first[p].ns;",
          "const uint64_t p_runs = last[p].runs, p_ns = last[p].ns;",
          r"^WindowCost\."),
    Break("cmd-exec-errno-clobbered", "a counted command that cannot be executed is reported with a later close's errno (EBADF), not execve's",
          "init/commands.cpp", "        exec_failed(report);", "        ::close(go_write);\n        exec_failed(report);",
          r"^CountedCommand\."),
    Break("child-exec-errno-clobbered", "the shared child helper reports a later system call's errno, not execve's",
          "sys/child.cpp", "    const int err = errno;", "    ::close(-1);\n    const int err = errno;",
          r"^CountedCommand\."),
    Break("log2-bounds-one-slot-low", "the log2 histograms' percentiles take each slot's bounds one slot low (every pNN halved)",
          "bpf/core/log2.cpp",
          "        buckets.push_back({i == 0 ? 0.0 : double(1ull << i), double(2ull << i), slots[i]});",
          "        buckets.push_back({i == 0 ? 0.0 : double(1ull << i) / 2, double(2ull << i) / 2, slots[i]});",
          r"^Log2Percentiles\."),
    Break("schema-wakeups-threads-any", "the wakeups record's threads takes any value (a string, -1)",
          "docs/schema/record-probe.schema.json",
          '        "threads": {\n          "$ref": "defs.schema.json#/$defs/count"\n        },\n',
          '        "threads": {},\n',
          r"^schema$"),
    Break("report-cells-show-the-base", "every side's metric cell in the report shows the base side's mean",
          "host/report/report_html.cpp",
          'double mean = s["mean"].get<double>(), sd = ',
          'double mean = (at(sides[0], "mean").is_number() ? sides[0] : s)["mean"].get<double>(), sd = ',
          r"^report\.Page$"),
    Break("histogram-events-decide", "a histogram's verdict is the chi-square over the pooled events, not the permutation of boots",
          "host/compare/compare_sides.cpp", "hc.significant = !hc.unqualified && t.value().p < alpha",
          "hc.significant = hc.events && hc.events->p < alpha", r"^HistogramVerdict\."),
    Break("histogram-too-few-boots-judged", "a histogram with too few boots a side to reach the level is judged anyway",
          "host/compare/compare_sides.cpp", "    if (hc.min_p >= alpha && !hc.unqualified) {", "    if (false) {",
          r"^HistogramVerdict\."),
    Break("ab-interrupt-counts-the-fewest", "an interrupted ab says the fewest boots a side were kept, not each side's",
          "host/engine/ab.cpp", 'sides_[s].label + " " + std::to_string(done_[s].size());',
          'sides_[s].label + " " + std::to_string(boots_a_side());', r"^AbDriver\."),
    Break("ab-interrupt-compares-nothing", "an interrupted ab writes no comparison of what finished",
          "host/engine/ab.cpp", "            judge_what_finished();", "", r"^AbDriver\."),
    Break("ab-directory-not-split", "compare takes an ab directory as one side (its plan ignored)",
          "host/compare/compare_read.cpp", 'if (!fs::exists(fs::path(args[i]) / "ab.json", ec)) {', "if (true) {",
          r"^CompareCliTest\.(AnAb|ADirectory)"),
    Break("directory-of-two-kernels-pooled", "a directory of two kernels' runs is pooled into one side",
          "host/compare/compare_read.cpp",
          "        if (const std::string differ = pooled_difference(side.runs); !differ.empty())",
          "        if (const std::string differ; false)", r"^CompareCliTest\.(AnAb|ADirectory)"),
    Break("firmware-sercon", "SeaBIOS is not told its serial port: the firmware's stages leave no line on the console",
          "host/boot/firmware_boot.cpp",
          'args.insert(args.end(), {"-device", nic, "-boot", "order=n", "-fw_cfg", "name=etc/sercon-port,file=" + spec.sercon_file});',
          'args.insert(args.end(), {"-device", nic, "-boot", "order=n"});', r"^boot\.FirmwareBootIpxe$"),
    Break("efi-initrd-name", "the iPXE script no longer names the image on the kernel's command line: the EFI stub loads no initrd",
          "host/boot/tftp_root.cpp", '"kernel " + kernel + " initrd=" + kTftpImageName + " " + cmdline',
          '"kernel " + kernel + " " + cmdline', r"^boot\.FirmwareBootUefi$"),
    Break("export-ids-unstable", "export's test ids change between two exports of the same results (a counter in the id)",
          "host/export/export_runs.cpp", "    base.id = run_key(run);",
          "    static int n = 0;\n    base.id = run_key(run) + std::to_string(n++);", r"^Export\.IdsAreStableAndUnique$"),
    Break("export-ids-without-round", "a boot's tests drop the round from their ids: the rounds' numbers collide",
          "host/export/export_runs.cpp", 't.id += ":r" + r + ":" + s.id', 't.id += ":" + s.id',
          r"^Export\.EachMetricOfEachRoundIsADoneNumber$"),
    Break("export-unknown-passes", "an UNKNOWN verdict is exported as PASS",
          "host/export/export_verdicts.cpp", 'return {TestStatus::done, ""}; // UNKNOWN: never PASS or FAIL',
          'return {TestStatus::pass, ""}; // UNKNOWN: never PASS or FAIL', r"^Export\.UnknownIsNeverPassOrFail$"),
    Break("export-error-run-numbers-done", "a run with error records exports its numbers as DONE",
          "host/export/export_runs.cpp",
          "    if (!f.failure.empty() || !f.errors.empty())\n        return {error_test(run, kernel, suite)};",
          "    if (!f.failure.empty())\n        return {error_test(run, kernel, suite)};",
          r"^Export\.AFailedRunIsErrorAndNoneOfItsNumbersIsDone$"),
    Break("export-skip-is-done", "an unsupported probe is DONE instead of SKIP",
          "host/export/export_runs.cpp", "    t.status = TestStatus::skip;", "    t.status = TestStatus::done;",
          r"^Export\.AnUnsupportedProbeIsSkipWithItsReason$"),
    Break("export-skip-no-reason", "an unsupported probe's SKIP loses its reason",
          "host/export/export_runs.cpp", 't.excerpt = json_str(record, "reason", "the probe is not supported by this kernel");',
          't.excerpt = "the probe is not supported by this kernel";', r"^Export\.AnUnsupportedProbeIsSkipWithItsReason$"),
    Break("export-fail-direction", "a DIFFERENT change in the worse direction is not FAIL (the direction test inverted)",
          "host/export/export_verdicts.cpp", "    if (c.kind == ChangeKind::worse)\n        return {TestStatus::fail",
          "    if (c.kind == ChangeKind::better)\n        return {TestStatus::fail",
          r"^Export\.AWorseDifferentIsFailAndABetterOneIsPass$"),
    Break("export-fail-on-ignored", "--fail-on's limit is ignored: the default worse-is-FAIL rule applies",
          "host/export/export_verdicts.cpp", "    if (named_by_rule(m, rules)) {", "    if (false) {",
          r"^Export\.FailOnDecidesTheMetricsItNames$"),
    Break("export-xml-lt", "JUnit text and attributes keep '<' unescaped",
          "host/export/xml_writer.cpp", """case '<': out += "&lt;"; break;""", """case '<': out += "<"; break;""",
          r"^ExportJunit\.(EscapesWhatXmlCannotHoldAsIs|EachStatusIsItsOutcome)$"),
    Break("export-xml-quote", "JUnit attributes keep '\"' unescaped",
          "host/export/xml_writer.cpp", """case '"': out += attribute ? "&quot;" : "\\""; break;""",
          """case '"': out += "\\""; break;""", r"^ExportJunit\.(EscapesWhatXmlCannotHoldAsIs|EachStatusIsItsOutcome)$"),
    Break("export-xml-controls", "control characters XML 1.0 cannot hold go into the JUnit file",
          "host/export/xml_writer.cpp", "            if (u < 0x20 || u == 0x7f)", "            if (false)",
          r"^ExportJunit\.EscapesWhatXmlCannotHoldAsIs$"),
    Break("export-junit-unknown-passes", "an UNKNOWN verdict is a passed JUnit case instead of <skipped>",
          "host/export/junit.cpp", "return t.verdict ? Outcome::skipped : Outcome::passed;", "return Outcome::passed;",
          r"^ExportJunit\.EachStatusIsItsOutcome$"),
    Break("export-origin-unchecked", "--origin takes upper-case letters, '-' and spaces",
          "host/export/kcidb.cpp", 'std::regex("[a-z0-9_]+")))\n        return Error{"--origin',
          'std::regex("[a-zA-Z0-9_ -]+")))\n        return Error{"--origin',
          r"^(Export\.BadInputIsRefusedWithAClearError|export_schema)$"),
    Break("export-version", "the KCIDB document says schema v5.4",
          "host/export/kcidb.cpp", '{"minor", 3}', '{"minor", 4}',
          r"^(Export\.EachMetricOfEachRoundIsADoneNumber|export_schema)$"),
    Break("export-path-colon", "a metric id's ':' stays inside a path component (funclat:kernel_clone)",
          "host/export/export_runs.cpp", "if (c == '/' || c == ':' || c == '.')", "if (c == '/' || c == '.')",
          r"^Export\.PathsKeepToKcidbsCharacters$"),
    Break("export-ab-level", "an ab directory's verdicts are judged at --confidence, not its last look's level",
          "host/export/export_read.cpp", "        o.confidence = 1 - *alpha;\n", "",
          r"^Export\.AnAbDirectoryIsItsSidesAgainstItsBase$"),
    Break("export-junit-cases-merge", "a side's boots give JUnit cases of the same name",
          "host/export/export_runs.cpp", "    base.name = base_name(run);\n", "", r"^export_schema$"),
    Break("comment-names-a-moved-file", "a comment points to a path that no longer exists",
          "bpf/span/span.cpp", "// Settled (bpf/core/settled_read.h)", "// Settled (bpf/settled_read.h)",
          r"^lint\.paths$"),
    Break("change-without-interval", "a change carries no interval: no format prints it",
          "host/compare/compare_judge.cpp", "    add_interval(c, base, next, base_mean, options);", "",
          r"^Render\."),
    Break("report-without-headline", "the report page does not open with the verdicts",
          "host/report/report_html.cpp", "        headline();", "", r"^report\.Page$"),
    Break("text-verdicts-not-first", "compare's text does not open with the verdicts",
          "host/compare/compare_text.cpp", '        out = "verdicts:\\n";', '        out = "";', r"^report\.Page$"),
    Break("ab-directory-all-boots-full-level", "compare on an ab directory judges every boot at --confidence, not its last look",
          "host/compare/compare_read.cpp", "const bool a_look = ab && ab->is_object()",
          "const bool a_look = false && ab->is_object()", r"^CompareCliTest\.AnAb"),
]


def run(cmd, cwd, log):
    with open(log, "a") as out:
        out.write(f"\n$ {' '.join(map(str, cmd))}\n")
        out.flush()
        return subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT).returncode


def copy_tree(dest):
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=SOURCE,
                           capture_output=True, check=True).stdout.split(b"\0")
    for f in filter(None, files):
        src = SOURCE / f.decode()
        if src.is_file():
            (dest / f.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f.decode())


def schema_break(text):
    """Drops "threads" from the wakeups probe's required list(s)."""
    import json
    doc = json.loads(text)

    def drop(node):
        if isinstance(node, dict):
            if "threads" in node.get("required", []):
                node["required"].remove("threads")
                return True
            return any([drop(v) for v in node.values()])
        if isinstance(node, list):
            return any([drop(v) for v in node])
        return False
    if not drop(doc["$defs"]["wakeups"]):
        return None
    return json.dumps(doc, indent=1)


def mutated(b, text):
    if b.name == "schema-wakeups-threads-optional":
        return schema_break(text)
    return text.replace(b.old, b.new) if text.count(b.old) == 1 else None


def first_failure(log):
    for line in Path(log).read_text(errors="replace").splitlines():
        if "Failure" in line or "AssertionError" in line or "***Failed" in line or "FAIL:" in line:
            return line.strip()[:160]
    return ""


def check(build):
    """Every break still applies and names tests that exist: a row the code has moved away
    from would otherwise test nothing, and say so only when someone runs the breaks."""
    listed = subprocess.run(["ctest", "--test-dir", str(build), "-N"], capture_output=True, text=True,
                            check=True).stdout
    names = [m.group(1) for m in re.finditer(r"^\s*Test +#\d+: (\S+)", listed, re.M)]
    stale = 0
    for b in BREAKS:
        if mutated(b, (SOURCE / b.path).read_text()) is None:
            print(f"{b.name}: its text is not in {b.path} once")
            stale += 1
        elif not any(re.search(b.tests, n) for n in names):
            print(f"{b.name}: no test matches {b.tests}")
            stale += 1
    print(f"{len(BREAKS)} breaks, {stale} stale")
    return 1 if stale else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--scratch")
    ap.add_argument("--check", metavar="BUILD")
    args = ap.parse_args()
    if args.check:
        return check(Path(args.check))
    if args.list:
        for b in BREAKS:
            print(f"{b.name:34} {b.what}  [{b.tests}]")
        return 0
    chosen = [b for b in BREAKS if not args.names or b.name in args.names]
    unknown = set(args.names) - {b.name for b in BREAKS}
    if unknown:
        print(f"mutants: no such break: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    scratch = Path(args.scratch or tempfile.mkdtemp(prefix="initbench-mutants-"))
    scratch.mkdir(parents=True, exist_ok=True)
    log = scratch / "mutants.log"
    copy_tree(scratch)
    build = scratch / "build"
    configure = ["cmake", "-S", ".", "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                 "-DINITBENCH_ARCHES=x86_64", "-DBUILD_TESTING=ON"]
    if run(configure, scratch, log) or run(["cmake", "--build", str(build)], scratch, log):
        print(f"mutants: the unbroken tree does not build; see {log}", file=sys.stderr)
        return 2
    env_kernel = subprocess.run([str(SOURCE / "scripts/fetch-debs.sh"), "kernel", "amd64"],
                                capture_output=True, text=True).stdout.strip()
    os.environ.setdefault("INITBENCH_TEST_KERNEL", env_kernel)
    survived = 0
    print(f"{'break':34} {'tests':32} caught")
    for b in chosen:
        path = scratch / b.path
        original = path.read_text()
        broken = mutated(b, original)
        if broken is None:
            print(f"{b.name:34} {b.tests:32} STALE: its text is not in {b.path} once")
            survived += 1
            continue
        path.write_text(broken)
        try:
            before = log.stat().st_size
            if run(["cmake", "--build", str(build)], scratch, log):
                print(f"{b.name:34} {b.tests:32} yes (the build fails)")
                continue
            code = run(["ctest", "--test-dir", str(build), "-R", b.tests, "--output-on-failure"], scratch, log)
            with open(log) as f:
                f.seek(before)
                part = scratch / "last.log"
                part.write_text(f.read())
            caught = code != 0
            survived += not caught
            print(f"{b.name:34} {b.tests:32} {'yes' if caught else 'NO'}  {first_failure(part) if caught else ''}")
        finally:
            path.write_text(original)
    print(f"log: {log}")
    if not args.scratch:
        print(f"scratch tree kept for inspection: {scratch}")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
