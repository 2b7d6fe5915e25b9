/*
 * blkmc_harness.h: what blkmc_shim.c and harness.c share inside the shared
 * object blkmc builds from a scheduler file: the region of the call being
 * run (per thread) and the ways a call ends early. Written for blkmc.
 */
#ifndef BLKMC_HARNESS_H
#define BLKMC_HARNESS_H

#include "blkmc_region.h"

extern __thread struct blkmc_region *blkmc_cur;
/* Ends the call as BLKMC_HARNESS: something blkmc does not model. */
void blkmc_harness_error(const char *fmt, ...) __attribute__((__noreturn__, __format__(printf, 1, 2)));
int blkmc_rb_canon(struct rb_root *root);
int blkmc_rb_valid(const struct rb_root *root);
/* The slab caches module init made (blkmc_shim.c). */
int blkmc_cache_count(void);
struct kmem_cache *blkmc_cache(int i);
/* The pool small kmallocs after init come from (made before module init). */
void blkmc_kmalloc_setup(void);
/* The region whose accesses blkmc_tsan.c checks: set while the
 * scheduler's code runs (harness.c), NULL while blk-mq's own does. */
extern __thread struct blkmc_region *blkmc_check;
/* The allocator's own fills (poison, zeroing, redzones): never checked. */
void blkmc_fill(void *p, int c, unsigned long n);

#endif /* BLKMC_HARNESS_H */
