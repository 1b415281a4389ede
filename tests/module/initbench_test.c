// SPDX-License-Identifier: GPL-2.0
/*
 * initbench's test module: its init does page_frag-style work that counters can see, with
 * parameters that the boot tests read back from /sys/module/initbench_test/parameters.
 *   iterations  pages allocated and freed during init
 *   cpu         -1: work in the loading task; N: on a kthread bound to CPU N, waited for
 *   label       any string, echoed back
 *   pages_done  set by init: pages the work allocated
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

static int iterations = 1000;
module_param(iterations, int, 0444);
MODULE_PARM_DESC(iterations, "pages allocated and freed during init");

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "CPU of the worker kthread; -1 works in the loading task");

static char *label = "none";
module_param(label, charp, 0444);
MODULE_PARM_DESC(label, "echoed back through sysfs");

static int pages_done;
module_param(pages_done, int, 0444);
MODULE_PARM_DESC(pages_done, "pages allocated by the last init (read-only)");

static DECLARE_COMPLETION(work_done);
static int work_result;

static int do_work(void)
{
	int i;

	for (i = 0; i < iterations; i++) {
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page)
			return -ENOMEM;
		__free_page(page);
		pages_done++;
		cond_resched();
	}
	return 0;
}

static int worker(void *unused)
{
	work_result = do_work();
	complete(&work_done);
	return 0;
}

static int __init initbench_test_init(void)
{
	struct task_struct *task;

	pages_done = 0;
	if (iterations < 0)
		return -EINVAL;
	if (cpu < 0)
		return do_work();
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	task = kthread_create(worker, NULL, "initbench_test/%d", cpu);
	if (IS_ERR(task))
		return PTR_ERR(task);
	kthread_bind(task, cpu);
	wake_up_process(task);
	wait_for_completion(&work_done);
	return work_result;
}

static void __exit initbench_test_exit(void)
{
}

module_init(initbench_test_init);
module_exit(initbench_test_exit);
MODULE_DESCRIPTION("initbench test module: counted work with parameters");
MODULE_LICENSE("GPL");
