// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for the page_frag thread's page_frag_test.ko, written for initbench against the
 * page_frag API that Debian's 6.1 has (page_frag_alloc_align, page_frag_free). It takes the
 * same parameters and has the same shape, so that the page_frag profile runs end to end on a
 * stock kernel: a push kthread bound to test_push_cpu allocates nr_test fragments of
 * test_alloc_len bytes from its own page_frag_cache and hands them over a ptr_ring to a pop
 * kthread bound to test_pop_cpu, which frees them. The init waits for both and always
 * returns -EAGAIN, so the module never stays loaded and insmod can run it again at once.
 * It measures the 6.1 allocator, not the patched one of the thread.
 *
 *   test_push_cpu   CPU of the allocating kthread
 *   test_pop_cpu    CPU of the freeing kthread (may be the same)
 *   test_alloc_len  bytes per fragment, 1 to PAGE_SIZE
 *   nr_test         fragments pushed and popped
 *   test_align      1: each fragment aligned to a cache line (page_frag_alloc_align)
 */
#include <linux/cache.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/ptr_ring.h>
#include <linux/sched.h>

static int test_push_cpu;
module_param(test_push_cpu, int, 0444);
MODULE_PARM_DESC(test_push_cpu, "CPU of the kthread that allocates");

static int test_pop_cpu;
module_param(test_pop_cpu, int, 0444);
MODULE_PARM_DESC(test_pop_cpu, "CPU of the kthread that frees");

static int test_alloc_len = 2048;
module_param(test_alloc_len, int, 0444);
MODULE_PARM_DESC(test_alloc_len, "bytes per fragment");

static int nr_test = 5120000;
module_param(nr_test, int, 0444);
MODULE_PARM_DESC(nr_test, "fragments allocated and freed");

static bool test_align;
module_param(test_align, bool, 0444);
MODULE_PARM_DESC(test_align, "align each fragment to a cache line");

#define RING_SIZE 512

static struct ptr_ring ring;
static struct page_frag_cache frag_cache;
static DECLARE_COMPLETION(push_done);
static DECLARE_COMPLETION(pop_done);
static int push_result;
static bool push_stopped; /* the pop side stops waiting for fragments that will not come */

static int push_frags(void *unused)
{
	unsigned int align_mask = test_align ? ~(SMP_CACHE_BYTES - 1u) : ~0u;
	int i;

	for (i = 0; i < nr_test; i++) {
		void *va = page_frag_alloc_align(&frag_cache, test_alloc_len, GFP_KERNEL, align_mask);

		if (!va) {
			push_result = -ENOMEM;
			break;
		}
		while (ptr_ring_produce(&ring, va))
			cond_resched(); /* full: let the pop side run, on this CPU too */
	}
	WRITE_ONCE(push_stopped, true);
	kthread_complete_and_exit(&push_done, 0);
}

static int pop_frags(void *unused)
{
	for (;;) {
		void *va = ptr_ring_consume(&ring);

		if (va) {
			page_frag_free(va);
			continue;
		}
		if (READ_ONCE(push_stopped) && ptr_ring_empty(&ring))
			break;
		cond_resched();
	}
	kthread_complete_and_exit(&pop_done, 0);
}

static struct task_struct *start_on(int (*fn)(void *), int cpu, const char *what)
{
	struct task_struct *task = kthread_create(fn, NULL, "page_frag_%s/%d", what, cpu);

	if (!IS_ERR(task)) {
		kthread_bind(task, cpu);
		wake_up_process(task);
	}
	return task;
}

static bool usable_cpu(int cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu);
}

static void drain_frag_cache(void)
{
	if (frag_cache.va)
		__page_frag_cache_drain(virt_to_head_page(frag_cache.va), frag_cache.pagecnt_bias);
	frag_cache.va = NULL;
}

static int __init page_frag_test_init(void)
{
	struct task_struct *pop, *push;
	int err;

	if (!usable_cpu(test_push_cpu) || !usable_cpu(test_pop_cpu) || nr_test < 0 ||
	    test_alloc_len < 1 || test_alloc_len > PAGE_SIZE)
		return -EINVAL;
	err = ptr_ring_init(&ring, RING_SIZE, GFP_KERNEL);
	if (err)
		return err;
	memset(&frag_cache, 0, sizeof(frag_cache));
	push_result = 0;
	push_stopped = false;
	reinit_completion(&push_done);
	reinit_completion(&pop_done);

	pop = start_on(pop_frags, test_pop_cpu, "pop");
	if (IS_ERR(pop)) {
		ptr_ring_cleanup(&ring, NULL);
		return PTR_ERR(pop);
	}
	push = start_on(push_frags, test_push_cpu, "push");
	if (IS_ERR(push)) {
		WRITE_ONCE(push_stopped, true);
		err = PTR_ERR(push);
	} else {
		wait_for_completion(&push_done);
		err = push_result;
	}
	wait_for_completion(&pop_done);
	drain_frag_cache();
	ptr_ring_cleanup(&ring, NULL);
	/* One line per init: the boot tests count them (BusyBox's insmod makes two). */
	pr_info("page_frag_test: %d fragments of %d bytes, push CPU %d, pop CPU %d%s: %s\n", nr_test,
		test_alloc_len, test_push_cpu, test_pop_cpu, test_align ? ", aligned" : "",
		err ? "failed" : "done");
	/* As the thread's module: never stays loaded, so the next insmod runs it again. */
	return err ? err : -EAGAIN;
}

module_init(page_frag_test_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("initbench: page_frag push/pop between two kthreads, its init returns -EAGAIN");
