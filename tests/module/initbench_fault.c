// SPDX-License-Identifier: GPL-2.0
/*
 * initbench's fault module, for the fault matrix (tests/boot/test_faults.py): a kernel
 * warning that happens a little after the module loaded, from a work item, so that it lands
 * inside whatever the experiment is doing then rather than inside the load.
 *   warn_after_ms  delay from the load to the WARN() (default 500)
 *   warnings       how many times it warned (read-only)
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/workqueue.h>

static int warn_after_ms = 500;
module_param(warn_after_ms, int, 0444);
MODULE_PARM_DESC(warn_after_ms, "milliseconds from the load to the warning");

static int warnings;
module_param(warnings, int, 0444);
MODULE_PARM_DESC(warnings, "warnings given so far (read-only)");

static void warn_now(struct work_struct *unused)
{
	warnings++;
	WARN(1, "initbench_fault: deliberate warning %d ms after the load\n", warn_after_ms);
}

static DECLARE_DELAYED_WORK(warn_work, warn_now);

static int __init initbench_fault_init(void)
{
	if (warn_after_ms < 0)
		return -EINVAL;
	schedule_delayed_work(&warn_work, msecs_to_jiffies(warn_after_ms));
	return 0;
}

static void __exit initbench_fault_exit(void)
{
	cancel_delayed_work_sync(&warn_work);
}

module_init(initbench_fault_init);
module_exit(initbench_fault_exit);
MODULE_DESCRIPTION("initbench fault module: a WARN() some time after the load");
MODULE_LICENSE("GPL");
