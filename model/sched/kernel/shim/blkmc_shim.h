/*
 * blkmc_shim.h: blkmc's stand-in for the kernel interfaces an I/O
 * scheduler file (block/mq-deadline.c) uses, written for blkmc from the
 * interfaces' documented behaviour. Every <linux/...> and block-local header
 * the file includes is a one-line file that includes this one, so the
 * kernel's own headers are never read.
 *
 * What is real: lists, rb-trees, time arithmetic (time_after & co. on a
 * 64-bit jiffies), the request and queue fields a scheduler reads, the
 * elevator helpers (elv_rb_*), sysfs show/store plumbing, kstrtoint,
 * kzalloc (a bump allocator in blkmc's region). What is not: locks (each
 * scheduler call is one atomic step, as under the elevator lock), trace
 * points, debugfs (CONFIG_BLK_DEBUG_FS is off), zoned devices, merges (the
 * queue behaves as with nomerges=2: every merge attempt finds nothing; see
 * blkmc_shim.c), the elevator hash (RQF_HASHED only). BUG and WARN end the
 * step as a `kernel-bug` verdict.
 *
 * BLKMC_KV (KERNEL_VERSION(a,b,c)) selects the interface of a version range:
 * 6.1-6.4 (insert_requests takes `bool at_head`, RQF_ELV / RQF_ELVPRIV)
 * and 6.5-6.12 (blk_insert_t flags, RQF_USE_SCHED).
 */
#ifndef BLKMC_SHIM_H
#define BLKMC_SHIM_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#ifndef BLKMC_KV
#error "BLKMC_KV (the kernel version) is not set"
#endif
#define LINUX_VERSION_CODE BLKMC_KV
#define BLKMC_KV_6_5 (BLKMC_KV >= KERNEL_VERSION(6, 5, 0))

/* ---- types ---- */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s32 __s32;
typedef s64 __s64;
typedef __SIZE_TYPE__ size_t;
typedef long ssize_t;
typedef long long loff_t;
typedef u64 sector_t;
typedef unsigned int gfp_t;
typedef unsigned int fmode_t;
typedef s64 ktime_t;
typedef u32 blk_opf_t;
typedef u32 req_flags_t;
typedef u32 blk_mq_req_flags_t;
typedef unsigned int blk_insert_t;
typedef int blk_status_t;
typedef int pid_t;
typedef int clockid_t;
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
typedef struct { s64 counter; } atomic64_t;
typedef struct { int blkmc_unused; } spinlock_t;
typedef struct { int blkmc_unused; } raw_spinlock_t;

#define __bitwise
#define __force
#define __user
#define __rcu
#define __iomem
#define __percpu
#define __init
#define __exit
#define __initdata
#define __read_mostly
#define __cold
#undef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#define noinline __attribute__((__noinline__))
#define __maybe_unused __attribute__((__unused__))
#define __always_unused __attribute__((__unused__))
#define __printf(a, b) __attribute__((__format__(printf, a, b)))
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define __cacheline_aligned_in_smp
#define ____cacheline_aligned_in_smp
#define __aligned(x) __attribute__((__aligned__(x)))
#define __packed __attribute__((__packed__))
#define fallthrough __attribute__((__fallthrough__))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ __volatile__("" ::: "memory")
#define cpu_relax() barrier()
#define smp_mb() barrier()
#define smp_wmb() barrier()
#define smp_rmb() barrier()
#define smp_mb__before_atomic() barrier()
#define smp_mb__after_atomic() barrier()
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define __stringify_1(x) #x
#define __stringify(x) __stringify_1(x)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BUILD_BUG_ON(c) ((void)sizeof(char[1 - 2 * !!(c)]))
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define might_sleep() do { } while (0)
#define cond_resched() do { } while (0)
#define EXPORT_SYMBOL(x) extern int blkmc_unused_decl
#define EXPORT_SYMBOL_GPL(x) extern int blkmc_unused_decl

/* CONFIG_x as the kernel's IS_ENABLED() reads it: set (=1) or not. */
#define blkmc_arg_1 0,
#define blkmc_second(ignored, val, ...) val
#define blkmc_defined3(junk) blkmc_second(junk 1, 0, 0)
#define blkmc_defined2(val) blkmc_defined3(blkmc_arg_##val)
#define IS_ENABLED(option) blkmc_defined2(option)
#define IS_BUILTIN(option) IS_ENABLED(option)
#define IS_MODULE(option) 0
#define IS_REACHABLE(option) IS_ENABLED(option)

#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b) ({ t _a = (a); t _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b) ({ t _a = (a); t _b = (b); _a > _b ? _a : _b; })
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi) min_t(t, max_t(t, v, lo), hi)
#define clamp_val(v, lo, hi) clamp_t(__typeof__(v), v, lo, hi)
#define swap(a, b) do { __typeof__(a) _t = (a); (a) = (b); (b) = _t; } while (0)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define min3(a, b, c) min(min(a, b), c)
#define max3(a, b, c) max(max(a, b), c)
/* abs() as include/linux/math.h defines it: the value read as the signed
 * type of its size, so that abs(a - b) of two unsigned sector_t is their
 * distance (a plain _x < 0 test would return an unsigned difference as is). */
#define __blkmc_abs(x, T) ({ T _x = (T)(x); _x < 0 ? -_x : _x; })
#define abs(x)                                                                    \
  __builtin_choose_expr(sizeof(x) == 8, __blkmc_abs(x, long long),               \
  __builtin_choose_expr(sizeof(x) == 4, __blkmc_abs(x, int),                     \
  __builtin_choose_expr(sizeof(x) == 2, __blkmc_abs(x, short), __blkmc_abs(x, signed char))))
/* 64-bit division as the kernel's math64.h documents it. */
static inline u64 div_u64(u64 n, u32 d) { return n / d; }
static inline s64 div_s64(s64 n, s32 d) { return n / d; }
static inline u64 div64_u64(u64 n, u64 d) { return n / d; }
static inline u64 div64_ul(u64 n, unsigned long d) { return n / d; }
/* do_div(n, base): n becomes the quotient, the remainder is returned. */
#define do_div(n, base) ({ u32 _b = (base); u32 _r = (u32)((n) % _b); (n) = (n) / _b; _r; })
static inline unsigned int hweight32(u32 w) { return (unsigned int)__builtin_popcount(w); }
static inline unsigned int hweight64(u64 w) { return (unsigned int)__builtin_popcountll(w); }
#define BIT(n) (1UL << (n))
#define U32_MAX ((u32)~0U)
#define U64_MAX ((u64)~0ULL)
#define S64_MAX ((s64)(U64_MAX >> 1))

#define EPERM 1
#define ENOENT 2
#define EIO 5
#define EAGAIN 11
#define ENOMEM 12
#define EBUSY 16
#define EINVAL 22
#define ERANGE 34
#define ENOTSUPP 524

/* ---- BUG and WARN: the end of the step, as a kernel-bug verdict ---- */
void blkmc_bug(const char *file, int line, const char *what) __attribute__((__noreturn__));
void blkmc_warn(const char *file, int line, const char *what);
#define BUG() blkmc_bug(__FILE__, __LINE__, "BUG()")
#define BUG_ON(c) do { if (unlikely(c)) blkmc_bug(__FILE__, __LINE__, "BUG_ON(" #c ")"); } while (0)
#define WARN_ON(c) ({ int blkmc_w = !!(c); if (unlikely(blkmc_w)) blkmc_warn(__FILE__, __LINE__, "WARN_ON(" #c ")"); unlikely(blkmc_w); })
/* Once-ness is no state of blkmc's: every WARN is a verdict. */
#define WARN_ON_ONCE(c) ({ int blkmc_w = !!(c); if (unlikely(blkmc_w)) blkmc_warn(__FILE__, __LINE__, "WARN_ON_ONCE(" #c ")"); unlikely(blkmc_w); })
#define WARN(c, ...) ({ int blkmc_w = !!(c); if (unlikely(blkmc_w)) blkmc_warn(__FILE__, __LINE__, "WARN(" #c ")"); unlikely(blkmc_w); })
#define WARN_ONCE(c, ...) WARN(c, __VA_ARGS__)
#define lockdep_assert_held(l) do { (void)(l); } while (0)
#define lockdep_assert_not_held(l) do { (void)(l); } while (0)

/* printk and friends print nothing (a step's story comes from blkmc). */
static inline __printf(1, 2) int printk(const char *fmt, ...) { (void)fmt; return 0; }
#define pr_err(...) printk(__VA_ARGS__)
#define pr_warn(...) printk(__VA_ARGS__)
#define pr_info(...) printk(__VA_ARGS__)
#define pr_debug(...) printk(__VA_ARGS__)
#define pr_crit(...) printk(__VA_ARGS__)
#define pr_notice(...) printk(__VA_ARGS__)
#define KERN_ERR ""
#define KERN_WARNING ""
#define KERN_INFO ""

/* ---- locks: no-ops; one scheduler call is one atomic step ---- */
#define spin_lock_init(l) do { (void)(l); } while (0)
#define spin_lock(l) do { (void)(l); } while (0)
#define spin_unlock(l) do { (void)(l); } while (0)
#define spin_lock_irq(l) do { (void)(l); } while (0)
#define spin_unlock_irq(l) do { (void)(l); } while (0)
#define spin_lock_irqsave(l, f) do { (void)(l); (f) = 0; } while (0)
#define spin_unlock_irqrestore(l, f) do { (void)(l); (void)(f); } while (0)
#define rcu_read_lock() do { } while (0)
#define rcu_read_unlock() do { } while (0)
#define local_irq_save(f) do { (f) = 0; } while (0)
#define local_irq_restore(f) do { (void)(f); } while (0)

/* ---- atomics (single-threaded within a step) ---- */
#define ATOMIC_INIT(i) { (i) }
static inline int atomic_read(const atomic_t *v) { return v->counter; }
static inline void atomic_set(atomic_t *v, int i) { v->counter = i; }
static inline void atomic_inc(atomic_t *v) { v->counter++; }
static inline void atomic_dec(atomic_t *v) { v->counter--; }
static inline void atomic_add(int i, atomic_t *v) { v->counter += i; }
static inline void atomic_sub(int i, atomic_t *v) { v->counter -= i; }
static inline int atomic_inc_return(atomic_t *v) { return ++v->counter; }
static inline int atomic_dec_return(atomic_t *v) { return --v->counter; }
static inline bool atomic_dec_and_test(atomic_t *v) { return --v->counter == 0; }
static inline long atomic_long_read(const atomic_long_t *v) { return v->counter; }
static inline void atomic_long_set(atomic_long_t *v, long i) { v->counter = i; }
static inline void atomic_long_inc(atomic_long_t *v) { v->counter++; }
static inline bool atomic_long_dec_and_test(atomic_long_t *v) { return --v->counter == 0; }
static inline s64 atomic64_read(const atomic64_t *v) { return v->counter; }
static inline void atomic64_set(atomic64_t *v, s64 i) { v->counter = i; }
static inline void atomic64_add(s64 i, atomic64_t *v) { v->counter += i; }
/* Per-CPU counters: one CPU. */
struct percpu_counter {
  s64 count;
};
/* The cgroup I/O statistics' type (blk-cgroup-rwstat.h): declared, never
 * counted (group scheduling is off). */
enum { BLKG_RWSTAT_READ, BLKG_RWSTAT_WRITE, BLKG_RWSTAT_SYNC, BLKG_RWSTAT_ASYNC, BLKG_RWSTAT_DISCARD, BLKG_RWSTAT_NR };
struct blkg_rwstat {
  struct percpu_counter cpu_cnt[BLKG_RWSTAT_NR];
  atomic64_t aux_cnt[BLKG_RWSTAT_NR];
};

/* ---- bit operations on unsigned long words ---- */
#define BITS_PER_LONG 64
static inline void __set_bit(unsigned int nr, volatile unsigned long *a) { a[nr / 64] |= 1UL << (nr % 64); }
static inline void __clear_bit(unsigned int nr, volatile unsigned long *a) { a[nr / 64] &= ~(1UL << (nr % 64)); }
static inline bool test_bit(unsigned int nr, const volatile unsigned long *a) { return (a[nr / 64] >> (nr % 64)) & 1; }
#define set_bit(nr, a) __set_bit(nr, a)
#define clear_bit(nr, a) __clear_bit(nr, a)

/* ---- time: 64-bit jiffies from blkmc's clock, HZ = 1000 (a tick is a ms) ---- */
#define HZ 1000
#define NSEC_PER_USEC 1000L
#define NSEC_PER_MSEC 1000000L
#define NSEC_PER_SEC 1000000000L
#define USEC_PER_MSEC 1000L
#define MSEC_PER_SEC 1000L
#define MAX_JIFFY_OFFSET ((LONG_MAX >> 1) - 1)
/* The clock of the step being run (per thread: each search thread runs its
 * own copy of the scheduler's state). */
extern __thread unsigned long blkmc_jiffies;
#define jiffies (*(volatile unsigned long *)&blkmc_jiffies)
#define jiffies_64 jiffies
static inline u64 get_jiffies_64(void) { return jiffies; }
#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)
#define time_before_eq(a, b) time_after_eq(b, a)
#define time_in_range(a, b, c) (time_after_eq(a, b) && time_before_eq(a, c))
#define time_is_before_jiffies(a) time_after(jiffies, a)
#define time_is_after_jiffies(a) time_before(jiffies, a)
#define time_is_before_eq_jiffies(a) time_after_eq(jiffies, a)
#define time_is_after_eq_jiffies(a) time_before_eq(jiffies, a)
#define time_after64(a, b) time_after(a, b)
#define time_before64(a, b) time_before(a, b)
static inline unsigned long msecs_to_jiffies(const unsigned int m) {
  return (int)m < 0 ? MAX_JIFFY_OFFSET : m;
}
static inline unsigned int jiffies_to_msecs(const unsigned long j) { return (unsigned int)j; }
static inline unsigned long usecs_to_jiffies(const unsigned int u) { return (u + 999) / 1000; }
static inline unsigned int jiffies_to_usecs(const unsigned long j) { return (unsigned int)(j * 1000); }
static inline u64 jiffies_to_nsecs(const unsigned long j) { return (u64)j * NSEC_PER_MSEC; }
static inline unsigned long nsecs_to_jiffies(u64 n) { return (unsigned long)(n / NSEC_PER_MSEC); }
/* ktime follows jiffies: a tick is a millisecond. */
u64 ktime_get_ns(void);
static inline ktime_t ktime_get(void) { return (ktime_t)ktime_get_ns(); }
static inline s64 ktime_to_ns(ktime_t t) { return t; }
static inline ktime_t ns_to_ktime(u64 n) { return (ktime_t)n; }
static inline ktime_t ms_to_ktime(u64 m) { return (ktime_t)(m * NSEC_PER_MSEC); }
static inline ktime_t ktime_add_ns(ktime_t t, u64 n) { return t + (ktime_t)n; }
static inline s64 ktime_us_delta(ktime_t a, ktime_t b) { return (a - b) / NSEC_PER_USEC; }
static inline ktime_t ktime_sub(ktime_t a, ktime_t b) { return a - b; }
static inline ktime_t ktime_add(ktime_t a, ktime_t b) { return a + b; }
static inline s64 ktime_to_us(ktime_t t) { return t / NSEC_PER_USEC; }
static inline s64 ktime_to_ms(ktime_t t) { return t / NSEC_PER_MSEC; }
/* The block layer's cached clock (6.9 on): the same ktime. */
static inline u64 blk_time_get_ns(void) { return ktime_get_ns(); }
static inline ktime_t blk_time_get(void) { return (ktime_t)ktime_get_ns(); }

/* hrtimers (blkmc_shim.c): armed in the region, fired by blkmc's harness at
 * their expiry tick (clock=1) or when blk-mq next finds nothing to dispatch
 * (clock=0), never on their own. */
#define CLOCK_MONOTONIC 1
enum hrtimer_mode { HRTIMER_MODE_ABS = 0, HRTIMER_MODE_REL = 1 };
enum hrtimer_restart { HRTIMER_NORESTART = 0, HRTIMER_RESTART = 1 };
struct hrtimer {
  ktime_t expires;
  enum hrtimer_restart (*function)(struct hrtimer *);
  u32 active;
  u32 blkmc_pad;
};
void hrtimer_init(struct hrtimer *t, clockid_t clock, enum hrtimer_mode mode);
void hrtimer_start(struct hrtimer *t, ktime_t tim, enum hrtimer_mode mode);
int hrtimer_try_to_cancel(struct hrtimer *t);
int hrtimer_cancel(struct hrtimer *t);
static inline bool hrtimer_active(const struct hrtimer *t) { return t->active != 0; }
static inline bool hrtimer_is_queued(const struct hrtimer *t) { return t->active != 0; }
static inline ktime_t hrtimer_get_expires(const struct hrtimer *t) { return t->expires; }

/* ---- lists ---- */
struct list_head {
  struct list_head *next, *prev;
};
struct hlist_node {
  struct hlist_node *next, **pprev;
};
struct hlist_head {
  struct hlist_node *first;
};
/* Small values that fault when followed (page 0 is never mapped). */
#define LIST_POISON1 ((void *)0x100)
#define LIST_POISON2 ((void *)0x122)
#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l; l->prev = l; }
static inline void blkmc_list_add(struct list_head *n, struct list_head *prev, struct list_head *next) {
  next->prev = n;
  n->next = next;
  n->prev = prev;
  prev->next = n;
}
static inline void list_add(struct list_head *n, struct list_head *head) { blkmc_list_add(n, head, head->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *head) { blkmc_list_add(n, head->prev, head); }
static inline void blkmc_list_unlink(struct list_head *e) {
  e->next->prev = e->prev;
  e->prev->next = e->next;
}
static inline void list_del(struct list_head *e) {
  blkmc_list_unlink(e);
  e->next = (struct list_head *)LIST_POISON1;
  e->prev = (struct list_head *)LIST_POISON2;
}
static inline void list_del_init(struct list_head *e) { blkmc_list_unlink(e); INIT_LIST_HEAD(e); }
static inline void list_move(struct list_head *e, struct list_head *head) { blkmc_list_unlink(e); list_add(e, head); }
static inline void list_move_tail(struct list_head *e, struct list_head *head) { blkmc_list_unlink(e); list_add_tail(e, head); }
static inline int list_empty(const struct list_head *h) { return READ_ONCE(h->next) == h; }
static inline int list_empty_careful(const struct list_head *h) { return h->next == h && h->prev == h; }
static inline int list_is_last(const struct list_head *e, const struct list_head *h) { return e->next == h; }
static inline int list_is_singular(const struct list_head *h) { return !list_empty(h) && h->next == h->prev; }
static inline void blkmc_list_splice(const struct list_head *list, struct list_head *prev, struct list_head *next) {
  struct list_head *first = list->next, *last = list->prev;
  first->prev = prev;
  prev->next = first;
  last->next = next;
  next->prev = last;
}
static inline void list_splice_init(struct list_head *list, struct list_head *head) {
  if (!list_empty(list)) { blkmc_list_splice(list, head, head->next); INIT_LIST_HEAD(list); }
}
static inline void list_splice_tail_init(struct list_head *list, struct list_head *head) {
  if (!list_empty(list)) { blkmc_list_splice(list, head->prev, head); INIT_LIST_HEAD(list); }
}
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member) list_entry((ptr)->prev, type, member)
#define list_first_entry_or_null(ptr, type, member) \
  ({ struct list_head *blkmc_h = (ptr); struct list_head *blkmc_p = READ_ONCE(blkmc_h->next); \
     blkmc_p != blkmc_h ? list_entry(blkmc_p, type, member) : NULL; })
#define list_next_entry(pos, member) list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_prev_entry(pos, member) list_entry((pos)->member.prev, __typeof__(*(pos)), member)
#define list_entry_is_head(pos, head, member) (&(pos)->member == (head))
#define list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_safe(pos, n, head) for (pos = (head)->next, n = pos->next; pos != (head); pos = n, n = pos->next)
#define list_for_each_entry(pos, head, member) \
  for (pos = list_first_entry(head, __typeof__(*pos), member); !list_entry_is_head(pos, head, member); \
       pos = list_next_entry(pos, member))
#define list_for_each_entry_reverse(pos, head, member) \
  for (pos = list_last_entry(head, __typeof__(*pos), member); !list_entry_is_head(pos, head, member); \
       pos = list_prev_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member) \
  for (pos = list_first_entry(head, __typeof__(*pos), member), n = list_next_entry(pos, member); \
       !list_entry_is_head(pos, head, member); pos = n, n = list_next_entry(n, member))
static inline void list_replace(struct list_head *old, struct list_head *n) {
  n->next = old->next;
  n->next->prev = n;
  n->prev = old->prev;
  n->prev->next = n;
}
static inline void list_replace_init(struct list_head *old, struct list_head *n) {
  list_replace(old, n);
  INIT_LIST_HEAD(old);
}
static inline void INIT_HLIST_NODE(struct hlist_node *h) { h->next = NULL; h->pprev = NULL; }
static inline int hlist_unhashed(const struct hlist_node *h) { return !h->pprev; }
static inline int hlist_empty(const struct hlist_head *h) { return !READ_ONCE(h->first); }
#define HLIST_HEAD_INIT { .first = NULL }
#define HLIST_HEAD(name) struct hlist_head name = { .first = NULL }
#define INIT_HLIST_HEAD(ptr) ((ptr)->first = NULL)
static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h) {
  struct hlist_node *first = h->first;
  n->next = first;
  if (first) first->pprev = &n->next;
  h->first = n;
  n->pprev = &h->first;
}
static inline void blkmc_hlist_unlink(struct hlist_node *n) {
  struct hlist_node *next = n->next, **pprev = n->pprev;
  *pprev = next;
  if (next) next->pprev = pprev;
}
static inline void hlist_del(struct hlist_node *n) {
  blkmc_hlist_unlink(n);
  n->next = (struct hlist_node *)LIST_POISON1;
  n->pprev = (struct hlist_node **)LIST_POISON2;
}
static inline void hlist_del_init(struct hlist_node *n) {
  if (!hlist_unhashed(n)) {
    blkmc_hlist_unlink(n);
    INIT_HLIST_NODE(n);
  }
}
#define hlist_entry(ptr, type, member) container_of(ptr, type, member)
#define hlist_entry_safe(ptr, type, member) \
  ({ __typeof__(ptr) blkmc_hp = (ptr); blkmc_hp ? hlist_entry(blkmc_hp, type, member) : NULL; })
#define hlist_for_each_entry(pos, head, member) \
  for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); pos; \
       pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))
#define hlist_for_each_entry_safe(pos, n, head, member) \
  for (pos = hlist_entry_safe((head)->first, __typeof__(*pos), member); \
       pos && ({ n = pos->member.next; 1; }); pos = hlist_entry_safe(n, __typeof__(*pos), member))

/* ---- rb-trees (blkmc_shim.c): red-black trees with the kernel's node layout ---- */
struct rb_node {
  unsigned long __rb_parent_color;
  struct rb_node *rb_right;
  struct rb_node *rb_left;
} __attribute__((__aligned__(sizeof(long))));
struct rb_root {
  struct rb_node *rb_node;
};
struct rb_root_cached {
  struct rb_root rb_root;
  struct rb_node *rb_leftmost;
};
#define RB_RED 0
#define RB_BLACK 1
#define RB_ROOT (struct rb_root) { NULL }
#define RB_ROOT_CACHED (struct rb_root_cached) { { NULL }, NULL }
#define rb_parent(r) ((struct rb_node *)((r)->__rb_parent_color & ~3UL))
#define rb_entry(ptr, type, member) container_of(ptr, type, member)
#define rb_entry_safe(ptr, type, member) ({ __typeof__(ptr) blkmc_p = (ptr); blkmc_p ? rb_entry(blkmc_p, type, member) : NULL; })
#define RB_EMPTY_ROOT(root) (READ_ONCE((root)->rb_node) == NULL)
#define RB_EMPTY_NODE(node) ((node)->__rb_parent_color == (unsigned long)(node))
#define RB_CLEAR_NODE(node) ((node)->__rb_parent_color = (unsigned long)(node))
static inline void rb_link_node(struct rb_node *node, struct rb_node *parent, struct rb_node **link) {
  node->__rb_parent_color = (unsigned long)parent;
  node->rb_left = node->rb_right = NULL;
  *link = node;
}
void rb_insert_color(struct rb_node *node, struct rb_root *root);
void rb_erase(struct rb_node *node, struct rb_root *root);
void rb_replace_node(struct rb_node *victim, struct rb_node *n, struct rb_root *root);
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);
static inline void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root, bool leftmost) {
  if (leftmost) root->rb_leftmost = node;
  rb_insert_color(node, &root->rb_root);
}
static inline void rb_erase_cached(struct rb_node *node, struct rb_root_cached *root) {
  if (root->rb_leftmost == node) root->rb_leftmost = rb_next(node);
  rb_erase(node, &root->rb_root);
}
#define rb_first_cached(root) (root)->rb_leftmost

/* ---- memory: a bump allocator in blkmc's region (blkmc_shim.c) ---- */
#define GFP_KERNEL 0x1u
#define GFP_NOWAIT 0x2u
#define GFP_ATOMIC 0x4u
#define GFP_NOIO 0x8u
#define __GFP_ZERO 0x100u
#define __GFP_NOWARN 0x200u
#define NUMA_NO_NODE (-1)
void *blkmc_alloc(size_t size, gfp_t flags);
void kfree(const void *p);
static inline void *kmalloc(size_t s, gfp_t f) { return blkmc_alloc(s, f); }
static inline void *kzalloc(size_t s, gfp_t f) { return blkmc_alloc(s, f | __GFP_ZERO); }
static inline void *kmalloc_node(size_t s, gfp_t f, int node) { (void)node; return blkmc_alloc(s, f); }
static inline void *kzalloc_node(size_t s, gfp_t f, int node) { (void)node; return blkmc_alloc(s, f | __GFP_ZERO); }
static inline void *kcalloc(size_t n, size_t s, gfp_t f) { return blkmc_alloc(n * s, f | __GFP_ZERO); }
/* Slab caches (blkmc_shim.c): a cache made at module init has a pool of
 * objects in every region, laid out by init like every other object, so
 * objects allocated and freed while the scheduler runs are part of the
 * state; a pool that runs out is something blkmc does not model. */
struct kmem_cache {
  const char *name;
  size_t size, align;
  int id; /* the pool's index in a region */
};
#define SLAB_HWCACHE_ALIGN 0x2000u
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align, unsigned int flags,
                                     void (*ctor)(void *));
#define KMEM_CACHE(s, flags) kmem_cache_create(#s, sizeof(struct s), __alignof__(struct s), (flags), NULL)
void *kmem_cache_alloc(struct kmem_cache *c, gfp_t flags);
static inline void *kmem_cache_alloc_node(struct kmem_cache *c, gfp_t flags, int node) {
  (void)node;
  return kmem_cache_alloc(c, flags);
}
static inline void *kmem_cache_zalloc(struct kmem_cache *c, gfp_t flags) { return kmem_cache_alloc(c, flags | __GFP_ZERO); }
void kmem_cache_free(struct kmem_cache *c, void *p);
void kmem_cache_destroy(struct kmem_cache *c);
void *memset(void *s, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);

/* ---- modules and sysfs ---- */
struct module;
#define THIS_MODULE ((struct module *)0)
#define MODULE_LICENSE(x) extern int blkmc_unused_decl
#define MODULE_AUTHOR(x) extern int blkmc_unused_decl
#define MODULE_DESCRIPTION(x) extern int blkmc_unused_decl
#define MODULE_ALIAS(x) extern int blkmc_unused_decl
#define MODULE_IMPORT_NS(x) extern int blkmc_unused_decl
/* The module's init and exit functions, reachable from blkmc's harness. */
#define module_init(fn) int blkmc_module_init(void) { return fn(); }
#define module_exit(fn) void blkmc_module_exit(void) { fn(); }
#define PAGE_SIZE 4096UL
struct attribute {
  const char *name;
  unsigned short mode;
};
struct kobject {
  const char *name;
  int refcount;
};
void kobject_put(struct kobject *k);
#define __ATTR(_name, _mode, _show, _store) \
  { .attr = { .name = __stringify(_name), .mode = (_mode) }, .show = (_show), .store = (_store) }
#define __ATTR_NULL { .attr = { .name = NULL } }
__printf(2, 3) int sysfs_emit(char *buf, const char *fmt, ...);
__printf(3, 4) int scnprintf(char *buf, size_t size, const char *fmt, ...);
__printf(3, 4) int snprintf(char *buf, size_t size, const char *fmt, ...);
__printf(2, 3) int sprintf(char *buf, const char *fmt, ...);
int kstrtoint(const char *s, unsigned int base, int *res);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoul(const char *s, unsigned int base, unsigned long *res);
int kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int kstrtoll(const char *s, unsigned int base, long long *res);
int kstrtobool(const char *s, bool *res);

/* ---- I/O priorities ---- */
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_MASK 0x07
#define IOPRIO_PRIO_MASK ((1UL << IOPRIO_CLASS_SHIFT) - 1)
#define IOPRIO_LEVEL_MASK 0x07
#define IOPRIO_PRIO_CLASS(ioprio) (((ioprio) >> IOPRIO_CLASS_SHIFT) & IOPRIO_CLASS_MASK)
#define IOPRIO_PRIO_DATA(ioprio) ((ioprio) & IOPRIO_PRIO_MASK)
#define IOPRIO_PRIO_LEVEL(ioprio) ((ioprio) & IOPRIO_LEVEL_MASK)
#define IOPRIO_PRIO_VALUE(cls, data) ((u16)((((cls) & IOPRIO_CLASS_MASK) << IOPRIO_CLASS_SHIFT) | ((data) & IOPRIO_PRIO_MASK)))
enum { IOPRIO_CLASS_NONE, IOPRIO_CLASS_RT, IOPRIO_CLASS_BE, IOPRIO_CLASS_IDLE, IOPRIO_CLASS_INVALID = 7 };
#define IOPRIO_NR_LEVELS 8
#define IOPRIO_BE_NR IOPRIO_NR_LEVELS
#define IOPRIO_NORM 4
#define IOPRIO_BE_NORM IOPRIO_NORM
#define IOPRIO_DEFAULT IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0)

/* ---- bios and requests ---- */
#define SECTOR_SHIFT 9
#define READ 0
#define WRITE 1
enum req_op {
  REQ_OP_READ = 0,
  REQ_OP_WRITE = 1,
  REQ_OP_FLUSH = 2,
  REQ_OP_DISCARD = 3,
  REQ_OP_SECURE_ERASE = 5,
  REQ_OP_ZONE_APPEND = 7,
  REQ_OP_WRITE_ZEROES = 9,
  REQ_OP_DRV_IN = 34,
  REQ_OP_DRV_OUT = 35,
};
#define REQ_OP_BITS 8
#define REQ_OP_MASK ((1u << REQ_OP_BITS) - 1)
#define REQ_FAILFAST_DEV (1u << 8)
#define REQ_SYNC (1u << 11)
#define REQ_META (1u << 12)
#define REQ_PRIO (1u << 13)
#define REQ_NOMERGE (1u << 14)
#define REQ_IDLE (1u << 15)
#define REQ_INTEGRITY (1u << 16)
#define REQ_FUA (1u << 17)
#define REQ_PREFLUSH (1u << 18)
#define REQ_RAHEAD (1u << 19)
#define REQ_BACKGROUND (1u << 20)
#define REQ_NOWAIT (1u << 21)
#define REQ_NOMERGE_FLAGS (REQ_NOMERGE | REQ_PREFLUSH | REQ_FUA)
static inline enum req_op blkmc_op(blk_opf_t op) { return (enum req_op)(op & REQ_OP_MASK); }
static inline bool op_is_write(blk_opf_t op) { return op & 1; }
static inline bool op_is_flush(blk_opf_t op) { return op & (REQ_FUA | REQ_PREFLUSH); }
static inline bool op_is_sync(blk_opf_t op) {
  return (op & REQ_OP_MASK) == REQ_OP_READ || (op & (REQ_SYNC | REQ_FUA | REQ_PREFLUSH));
}
static inline bool op_is_discard(blk_opf_t op) { return (op & REQ_OP_MASK) == REQ_OP_DISCARD; }
static inline bool blk_op_is_passthrough(blk_opf_t op) {
  op &= REQ_OP_MASK;
  return op == REQ_OP_DRV_IN || op == REQ_OP_DRV_OUT;
}

struct bvec_iter {
  sector_t bi_sector;
  unsigned int bi_size;
};
struct bio {
  struct bio *bi_next;
  blk_opf_t bi_opf;
  unsigned short bi_ioprio;
  struct bvec_iter bi_iter;
};
#define bio_op(bio) blkmc_op((bio)->bi_opf)
#define bio_data_dir(bio) (op_is_write(bio_op(bio)) ? WRITE : READ)
#define bio_sectors(bio) ((bio)->bi_iter.bi_size >> 9)
#define bio_end_sector(bio) ((bio)->bi_iter.bi_sector + bio_sectors(bio))
static inline bool bio_mergeable(struct bio *bio) { return !(bio->bi_opf & REQ_NOMERGE_FLAGS); }

/* Request flags (req_flags_t): blkmc's own bit values. */
#define RQF_STARTED (1u << 1)
#define RQF_FLUSH_SEQ (1u << 4)
#define RQF_MIXED_MERGE (1u << 5)
#define RQF_DONTPREP (1u << 7)
#define RQF_SCHED_TAGS (1u << 8)
#define RQF_USE_SCHED (1u << 9)
#define RQF_FAILED (1u << 10)
#define RQF_QUIET (1u << 11)
#define RQF_IO_STAT (1u << 13)
#define RQF_PM (1u << 15)
#define RQF_HASHED (1u << 16)
#define RQF_STATS (1u << 17)
#define RQF_SPECIAL_PAYLOAD (1u << 18)
#define RQF_ZONE_WRITE_PLUGGING (1u << 20)
#define RQF_TIMED_OUT (1u << 21)
#define RQF_RESV (1u << 23)
#define RQF_ELV (1u << 24)        /* 6.1-6.4 */
#define RQF_ELVPRIV (1u << 25)    /* 6.1-6.4 */
#define RQF_SOFTBARRIER (1u << 26) /* 6.1-6.4 */
#define RQF_NOMERGE_FLAGS (RQF_STARTED | RQF_FLUSH_SEQ | RQF_SPECIAL_PAYLOAD)

struct request_queue;
struct blk_mq_hw_ctx;
struct blk_mq_ctx;
struct io_cq;
struct block_device;

/*
 * struct request: the fields schedulers read. The first ones are what a
 * scheduler writes, as many 8-byte words of them as the family's scheduler
 * writes (mq-deadline: up to elv.priv[0]) are blkmc's state; the rest
 * blk-mq sets when it allocates the request and blkmc keeps constant for
 * its slot (they lie on a read-only page: blkmc_region.h).
 */
struct request {
  struct list_head queuelist;
  struct rb_node rb_node;
  u64 fifo_time;
  req_flags_t rq_flags;
  unsigned int blkmc_pad; /* zero (rq_flags' word holds nothing else) */
  struct {
    void *priv[2];
    struct io_cq *icq;
  } elv;
  /* --- constant for the slot --- */
  struct hlist_node hash;
  struct request_queue *q;
  struct blk_mq_ctx *mq_ctx;
  struct blk_mq_hw_ctx *mq_hctx;
  blk_opf_t cmd_flags;
  int tag;
  int internal_tag;
  unsigned int timeout;
  unsigned int __data_len;
  unsigned short ioprio;
  unsigned short nr_phys_segments;
  sector_t __sector;
  struct bio *bio;
  struct bio *biotail;
  struct block_device *part;
  u64 start_time_ns;
  u64 io_start_time_ns;
  void *end_io_data;
};
#define rq_data_dir(rq) (op_is_write(req_op(rq)) ? WRITE : READ)
static inline enum req_op req_op(const struct request *rq) { return blkmc_op(rq->cmd_flags); }
static inline sector_t blk_rq_pos(const struct request *rq) { return rq->__sector; }
static inline unsigned int blk_rq_bytes(const struct request *rq) { return rq->__data_len; }
static inline unsigned int blk_rq_sectors(const struct request *rq) { return rq->__data_len >> SECTOR_SHIFT; }
static inline unsigned short req_get_ioprio(struct request *rq) { return rq->ioprio; }
static inline bool blk_rq_is_passthrough(struct request *rq) { return blk_op_is_passthrough(rq->cmd_flags); }
static inline bool rq_is_sync(struct request *rq) { return op_is_sync(rq->cmd_flags); }
static inline bool blk_discard_mergable(struct request *rq) { (void)rq; return false; }
/* As the kernel documents rq_mergeable(): no passthrough, flush,
 * write-zeroes or zone-append request, and no request marked unmergeable. */
static inline bool rq_mergeable(struct request *rq) {
  if (blk_rq_is_passthrough(rq)) return false;
  if (req_op(rq) == REQ_OP_FLUSH || req_op(rq) == REQ_OP_WRITE_ZEROES || req_op(rq) == REQ_OP_ZONE_APPEND)
    return false;
  if (rq->cmd_flags & REQ_NOMERGE_FLAGS) return false;
  if (rq->rq_flags & RQF_NOMERGE_FLAGS) return false;
  return true;
}
void blk_mq_free_request(struct request *rq);
void blk_mq_free_requests(struct list_head *list);

/* ---- tags, hardware contexts, queues ---- */
struct sbitmap {
  unsigned int depth;
  unsigned int shift;
  unsigned int map_nr;
};
struct sbitmap_queue {
  struct sbitmap sb;
  unsigned int wake_batch;
  unsigned int min_shallow_depth;
};
void sbitmap_queue_min_shallow_depth(struct sbitmap_queue *sbq, unsigned int min_shallow_depth);
struct blk_mq_tags {
  unsigned int nr_tags;
  unsigned int nr_reserved_tags;
  struct sbitmap_queue bitmap_tags;
  struct sbitmap_queue breserved_tags;
};
struct blk_mq_hw_ctx {
  struct request_queue *queue;
  struct blk_mq_tags *tags;
  struct blk_mq_tags *sched_tags;
  void *sched_data;
  unsigned int queue_num;
  unsigned long state;
};
struct blk_mq_alloc_data {
  struct request_queue *q;
  blk_mq_req_flags_t flags;
  unsigned int shallow_depth;
  blk_opf_t cmd_flags;
  req_flags_t rq_flags;
  unsigned int nr_tags;
  struct blk_mq_ctx *ctx;
  struct blk_mq_hw_ctx *hctx;
};
#define BLK_MQ_REQ_NOWAIT (1u << 0)
#define BLK_MQ_REQ_RESERVED (1u << 1)
#define BLK_MQ_INSERT_AT_HEAD ((blk_insert_t)0x01)
#define BLK_MQ_NO_TAG (-1)

enum {
  QUEUE_FLAG_NOMERGES = 3,
  QUEUE_FLAG_NONROT = 6,
  QUEUE_FLAG_SQ_SCHED = 22,
};
/* The disk under the queue: one actuator (no independent access ranges),
 * a capacity, a name. */
struct blk_independent_access_range {
  sector_t sector;
  sector_t nr_sectors;
};
struct blk_independent_access_ranges {
  unsigned int nr_ia_ranges;
  struct blk_independent_access_range ia_range[];
};
struct backing_dev_info {
  const char *name;
};
struct gendisk {
  struct backing_dev_info *bdi;
  struct blk_independent_access_ranges *ia_ranges;
  sector_t capacity;
  char disk_name[32];
};
static inline sector_t get_capacity(struct gendisk *disk) { return disk->capacity; }
static inline const char *bdi_dev_name(struct backing_dev_info *bdi) { return bdi ? bdi->name : "blkmc"; }
struct elevator_queue;
struct request_queue {
  struct request *last_merge;
  struct elevator_queue *elevator;
  unsigned long queue_flags;
  unsigned long nr_requests;
  unsigned int queue_depth;
  int node;
  unsigned int nr_hw_queues;
  unsigned int id;
  spinlock_t queue_lock;
  struct gendisk *disk;
};
/* blk-mq runs the hardware queue: blkmc's framework runs it whenever the
 * scheduler has work, so a request to run it changes nothing. */
static inline void blk_mq_run_hw_queues(struct request_queue *q, bool async) { (void)q; (void)async; }
static inline void blk_mq_run_hw_queue(struct blk_mq_hw_ctx *h, bool async) { (void)h; (void)async; }
/* Writeback throttling and the queue's I/O statistics: not modelled. */
/* Writeback throttling is not modelled; the argument is the queue before
 * 6.3 and the disk since, so these take either. */
#define wbt_enable_default(x) ((void)(x))
#define wbt_disable_default(x) ((void)(x))
static inline void blk_stat_enable_accounting(struct request_queue *q) { (void)q; }
static inline void blk_stat_disable_accounting(struct request_queue *q) { (void)q; }
/* blktrace messages: none. */
static inline bool blk_trace_note_message_enabled(struct request_queue *q) { (void)q; return false; }
#define blk_add_trace_msg(q, fmt, ...) do { (void)(q); } while (0)
static inline void blk_queue_flag_set(unsigned int flag, struct request_queue *q) { __set_bit(flag, &q->queue_flags); }
static inline void blk_queue_flag_clear(unsigned int flag, struct request_queue *q) { __clear_bit(flag, &q->queue_flags); }
#define blk_queue_nomerges(q) test_bit(QUEUE_FLAG_NOMERGES, &(q)->queue_flags)
#define blk_queue_nonrot(q) test_bit(QUEUE_FLAG_NONROT, &(q)->queue_flags)
static inline bool blk_queue_is_zoned(struct request_queue *q) { (void)q; return false; }
static inline bool blk_req_can_dispatch_to_zone(struct request *rq) { (void)rq; return true; }
static inline void blk_req_zone_write_lock(struct request *rq) { (void)rq; }
static inline void blk_req_zone_write_unlock(struct request *rq) { (void)rq; }
static inline bool blk_rq_is_seq_zoned_write(struct request *rq) { (void)rq; return false; }
static inline void blk_mq_sched_mark_restart_hctx(struct blk_mq_hw_ctx *hctx) { (void)hctx; }
#define ELEVATOR_F_ZBD_SEQ_WRITE (1U << 0)

/* ---- the elevator ---- */
enum elv_merge {
  ELEVATOR_NO_MERGE = 0,
  ELEVATOR_FRONT_MERGE = 1,
  ELEVATOR_BACK_MERGE = 2,
  ELEVATOR_DISCARD_MERGE = 3,
};
struct elevator_type;
struct elevator_mq_ops {
  int (*init_sched)(struct request_queue *, struct elevator_type *);
  void (*exit_sched)(struct elevator_queue *);
  int (*init_hctx)(struct blk_mq_hw_ctx *, unsigned int);
  void (*exit_hctx)(struct blk_mq_hw_ctx *, unsigned int);
  void (*depth_updated)(struct blk_mq_hw_ctx *);
  bool (*allow_merge)(struct request_queue *, struct request *, struct bio *);
  bool (*bio_merge)(struct request_queue *, struct bio *, unsigned int);
  int (*request_merge)(struct request_queue *q, struct request **, struct bio *);
  void (*request_merged)(struct request_queue *, struct request *, enum elv_merge);
  void (*requests_merged)(struct request_queue *, struct request *, struct request *);
  void (*limit_depth)(blk_opf_t, struct blk_mq_alloc_data *);
  void (*prepare_request)(struct request *);
  void (*finish_request)(struct request *);
#if BLKMC_KV_6_5
  void (*insert_requests)(struct blk_mq_hw_ctx *hctx, struct list_head *list, blk_insert_t flags);
#else
  void (*insert_requests)(struct blk_mq_hw_ctx *hctx, struct list_head *list, bool at_head);
#endif
  struct request *(*dispatch_request)(struct blk_mq_hw_ctx *);
  bool (*has_work)(struct blk_mq_hw_ctx *);
  void (*completed_request)(struct request *, u64);
  void (*requeue_request)(struct request *);
  struct request *(*former_request)(struct request_queue *, struct request *);
  struct request *(*next_request)(struct request_queue *, struct request *);
  void (*init_icq)(struct io_cq *);
  void (*exit_icq)(struct io_cq *);
};
struct elv_fs_entry {
  struct attribute attr;
  ssize_t (*show)(struct elevator_queue *, char *);
  ssize_t (*store)(struct elevator_queue *, const char *, size_t);
};
struct kmem_cache;
struct elevator_type {
  struct kmem_cache *icq_cache;
  struct elevator_mq_ops ops;
  size_t icq_size;
  size_t icq_align;
  struct elv_fs_entry *elevator_attrs;
  const char *elevator_name;
  const char *elevator_alias;
  unsigned int elevator_features;
  struct module *elevator_owner;
  char icq_cache_name[32];
};
struct elevator_queue {
  struct elevator_type *type;
  void *elevator_data;
  struct kobject kobj;
  unsigned long flags;
};
#define ELEVATOR_FLAG_REGISTERED 0
#define ELEVATOR_FLAG_DISABLE_WBT 2

/* ---- processes and their I/O contexts (blkmc_shim.c) ----
 * `current` is the workload process whose request the call is about (the
 * submitter, for allocations and inserts), or blkmc's kernel thread. Each
 * process has one io_context, made with the region, and at most one io_cq
 * (there is one queue), taken from the elevator's icq pool the first time
 * the process submits (ioc_find_get_icq). */
struct io_cq;
struct io_context {
  atomic_long_t refcount;
  atomic_t active_ref;
  unsigned short ioprio;
  struct io_cq *icq;
};
struct io_cq {
  struct request_queue *q;
  struct io_context *ioc;
  struct list_head q_node;
  struct hlist_node ioc_node;
  unsigned int flags;
};
struct task_struct {
  pid_t pid;
  int nice;   /* -20..19 */
  int policy; /* SCHED_NORMAL, SCHED_IDLE, SCHED_FIFO */
  struct io_context *io_context;
  char comm[16];
};
#define SCHED_NORMAL 0
#define SCHED_FIFO 1
#define SCHED_RR 2
#define SCHED_IDLE 5
extern __thread struct task_struct *blkmc_current;
#define current blkmc_current
static inline int task_nice(const struct task_struct *p) { return p->nice; }
/* As the kernel derives an I/O priority from a task's CPU priority. */
static inline int task_nice_ioprio(struct task_struct *t) { return (task_nice(t) + 20) / 5; }
static inline int task_nice_ioclass(struct task_struct *t) {
  if (t->policy == SCHED_IDLE) return IOPRIO_CLASS_IDLE;
  if (t->policy == SCHED_FIFO || t->policy == SCHED_RR) return IOPRIO_CLASS_RT;
  return IOPRIO_CLASS_BE;
}
struct io_cq *ioc_lookup_icq(struct request_queue *q);
struct io_cq *ioc_find_get_icq(struct request_queue *q);
void put_io_context(struct io_context *ioc);
struct elevator_queue *elevator_alloc(struct request_queue *q, struct elevator_type *e);
int elv_register(struct elevator_type *e);
void elv_unregister(struct elevator_type *e);
void elv_rb_add(struct rb_root *root, struct request *rq);
void elv_rb_del(struct rb_root *root, struct request *rq);
struct request *elv_rb_find(struct rb_root *root, sector_t sector);
struct request *elv_rb_former_request(struct request_queue *q, struct request *rq);
struct request *elv_rb_latter_request(struct request_queue *q, struct request *rq);
void elv_rqhash_add(struct request_queue *q, struct request *rq);
void elv_rqhash_del(struct request_queue *q, struct request *rq);
bool elv_bio_merge_ok(struct request *rq, struct bio *bio);
#define ELV_ON_HASH(rq) ((rq)->rq_flags & RQF_HASHED)
#define rb_entry_rq(node) rb_entry((node), struct request, rb_node)
#define rq_entry_fifo(ptr) list_entry((ptr), struct request, queuelist)
#define rq_fifo_clear(rq) list_del_init(&(rq)->queuelist)
bool blk_mq_sched_try_merge(struct request_queue *q, struct bio *bio, unsigned int nr_segs, struct request **merged_request);
bool blk_mq_sched_try_insert_merge(struct request_queue *q, struct request *rq, struct list_head *free);

/* ---- trace points: none ---- */
static inline void trace_block_rq_insert(struct request *rq) { (void)rq; }
static inline void trace_block_rq_issue(struct request *rq) { (void)rq; }
static inline void trace_block_rq_merge(struct request *rq) { (void)rq; }

#endif /* BLKMC_SHIM_H */
