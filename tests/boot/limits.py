"""Every time limit of the boot tests, in one place, so that they agree.

A boot test has three limits nested in one another: `initbench run --timeout` (the host stops
QEMU), the wait for `initbench run` itself (it then writes what arrived), and ctest's TIMEOUT
for the whole class. When an inner one is longer than an outer one, a slow day kills the test
from outside, with no record of why (boot.ManyCpus once waited 1,500 s for a run whose own
limit was 600 s). Here each is derived from the one inside it:

    ctest TIMEOUT = boots x (boot limit + STOP_S) + SETUP_S (+ a class's extra_s)

A class says how many boots it makes and, when one needs more than BOOT_S, how long
(`ctest_boots`, `ctest_boot_s`); list_tests.py turns that into its ctest TIMEOUT, and
bootlib refuses a boot beyond the class's budget, so that a class that boots more than it
says fails at once on every machine instead of timing out on a slow one.

The limits are generous on purpose: they end a hung run, they do not measure speed. A boot
that takes 10 s on a quiet day took 3x that on a busy one; BOOT_S is 60x. Set
INITBENCH_TEST_SLOWDOWN to scale them all on a much slower machine.

This module imports nothing of the project's: list_tests.py reads it at configure time."""
import os

SLOWDOWN = float(os.environ.get("INITBENCH_TEST_SLOWDOWN", "1"))



def scaled(seconds: float) -> float:
    """A limit set on the machines the suite was written on, for this one."""
    return seconds * SLOWDOWN


# One ordinary boot: `initbench run --timeout` (initbench's own default).
BOOT_S = scaled(600)
# After its --timeout, `initbench run` stops QEMU and writes its documents within this.
STOP_S = 60
# Per test process, besides its boots: packing images, building modules, host-only commands.
SETUP_S = scaled(300)
# A host-only command (parse, compare, pack, kconfig check): no QEMU.
HOST_S = scaled(120)
# Building a minimal kernel from source (scripts/build-kernel.sh) on two cores.
KERNEL_BUILD_BASE_S = 7200
KERNEL_BUILD_S = scaled(KERNEL_BUILD_BASE_S)


def boot_wait(limit_s: float) -> float:
    """How long to wait for `initbench run --timeout limit_s` to exit."""
    return limit_s + STOP_S


def ctest_timeout(boots: int = 1, boot_s: float = BOOT_S, extra_s: float = 0) -> int:
    """A class's ctest TIMEOUT: its boots' limits and their stops, its set-up, and more."""
    return int(boot_budget(boots, boot_s) + SETUP_S + extra_s)


def boot_budget(boots: int = 1, boot_s: float = BOOT_S) -> float:
    """The seconds a class's boots may take, all together."""
    return boots * boot_wait(boot_s)
