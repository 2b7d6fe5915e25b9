/*
 * blkmc_tsan.c: blkmc's own runtime for the compiler's thread-sanitizer
 * instrumentation, as the kernel's KCSAN supplies its own. The scheduler's
 * file, the harness and the shim are compiled with -fsanitize=thread, so
 * every load, store, atomic operation and range copy of theirs calls one of
 * the __tsan_* entries below before it happens; this file is compiled
 * without it (its own accesses are not seen) and is linked into the same
 * object, so no libtsan is loaded.
 *
 * While the harness runs the scheduler's code (blkmc_check set), an access
 * to the region is held against what is allocated there: a request slot
 * whose request is not allocated (never, or completed), a slab object that
 * is free, an arena object kfree'd, the bytes past an object's size (its
 * padding and redzone), the arena beyond the last object. What is
 * allocated is read from the state itself (the pools' in-use words, the
 * freed-object words, a slot's poisoned list head), so it is right after
 * any restore. A bad access ends the call with BLKMC_MEMORY before it
 * happens (blkmc_mem_error), as KASAN reports it. Written for blkmc.
 */
#include <stddef.h>
#include <stdint.h>

#include "blkmc_region.h"

#define RT __attribute__((__visibility__("hidden")))

/* The region whose accesses are checked (harness.c sets it around the
 * scheduler's calls), and the frame of blkmc_k_call: where a walk up the
 * frame pointers stops. */
extern __thread struct blkmc_region *blkmc_check;
extern __thread void *blkmc_call_frame;
void blkmc_mem_error(void) __attribute__((__noreturn__));

static __attribute__((__noinline__, __noreturn__)) void blkmc_report(struct blkmc_region *r, int kind, uint64_t n,
                                                                       int write, int slot, int obj, int64_t at,
                                                                       void *pc) {
  struct blkmc_memerr *m = &r->mem;
  m->kind = kind;
  m->write = write;
  m->size = (uint32_t)n;
  m->slot = slot;
  m->obj = obj;
  m->pool = obj >= 0 ? r->objs[obj].pool : -1;
  m->at = at;
  /* The caller's frames, up to blkmc_k_call: the first is the access. */
  m->npc = 0;
  m->pc[m->npc++] = (uint64_t)(uintptr_t)pc;
  /* This function's frame, the hook's, then the code's (every file here
   * and the instrumented ones keep frame pointers). */
  void **f = (void **)__builtin_frame_address(0);
  f = f ? (void **)f[0] : NULL;
  f = f ? (void **)f[0] : NULL;
  while (f && m->npc < BLKMC_MEM_PCS && (void *)f < blkmc_call_frame && ((uintptr_t)f & 7) == 0) {
    void **up = (void **)f[0];
    if (!f[1]) break;
    m->pc[m->npc++] = (uint64_t)(uintptr_t)f[1];
    if (up <= f) break;
    f = up;
  }
  blkmc_check = NULL;
  blkmc_mem_error();
}

/* An access of n bytes at p by the code at pc. */
static inline __attribute__((__always_inline__)) void blkmc_access(const volatile void *p, uint64_t n, int write,
                                                                   void *pc) {
  struct blkmc_region *r = blkmc_check;
  if (!r) return;
  const uint64_t off = (uint64_t)((uintptr_t)p - (uintptr_t)r);
  if (off - r->arena_off >= r->size - r->arena_off) return; /* the header, a stack, a global */
  if (off >= r->slots_off) {
    /* Every region's slots are BLKMC_SLOT_STRIDE apart (a power of two). */
    const uint64_t in = (off - r->slots_off) % BLKMC_SLOT_STRIDE;
    const int slot = (int)((off - r->slots_off) / BLKMC_SLOT_STRIDE);
    const int64_t at = (int64_t)in - (int64_t)r->slot_lead;
    if (at < 0 || (uint64_t)at + n > r->rq_size)
      blkmc_report(r, BLKMC_MEM_OOB_RQ, n, write, slot, -1, at, pc);
    const uint64_t head = *(const uint64_t *)((const char *)r + off - in + r->slot_lead);
    if (head == 0x6b6b6b6b6b6b6b6bULL) blkmc_report(r, BLKMC_MEM_FREE_RQ, n, write, slot, -1, at, pc);
    return;
  }
  /* The object of the granule (objs[] index + 1): its padding and
   * redzone included, 0 where nothing was allocated. */
  const int i = (int)r->gran[(off - r->arena_off) / BLKMC_GRANULE] - 1;
  if (i < 0) blkmc_report(r, BLKMC_MEM_WILD, n, write, -1, -1, 0, pc);
  const struct blkmc_obj *o = &r->objs[i];
  const int64_t at = (int64_t)(off - o->off);
  if ((uint64_t)at + n > o->req) blkmc_report(r, BLKMC_MEM_OOB_OBJ, n, write, -1, i, at, pc);
  if (o->pool >= 0) {
    const struct blkmc_pool *pl = &r->pools[o->pool];
    const uint64_t map = *(const uint64_t *)((const char *)r + pl->map_off);
    if (!((map >> o->pool_index) & 1)) blkmc_report(r, BLKMC_MEM_FREE_OBJ, n, write, -1, i, at, pc);
  } else if (r->freed_off) {
    const uint64_t *freed = (const uint64_t *)((const char *)r + r->freed_off);
    if ((freed[i / 64] >> (i % 64)) & 1) blkmc_report(r, BLKMC_MEM_FREE_OBJ, n, write, -1, i, at, pc);
  }
}

#define PC __builtin_return_address(0)

/* Plain and volatile accesses of 1 to 16 bytes. */
#define BLKMC_RW(n)                                                                          \
  RT void __tsan_read##n(void *p) { blkmc_access(p, n, 0, PC); }                             \
  RT void __tsan_write##n(void *p) { blkmc_access(p, n, 1, PC); }                            \
  RT void __tsan_unaligned_read##n(void *p) { blkmc_access(p, n, 0, PC); }                   \
  RT void __tsan_unaligned_write##n(void *p) { blkmc_access(p, n, 1, PC); }                  \
  RT void __tsan_volatile_read##n(void *p) { blkmc_access(p, n, 0, PC); }                    \
  RT void __tsan_volatile_write##n(void *p) { blkmc_access(p, n, 1, PC); }                   \
  RT void __tsan_unaligned_volatile_read##n(void *p) { blkmc_access(p, n, 0, PC); }          \
  RT void __tsan_unaligned_volatile_write##n(void *p) { blkmc_access(p, n, 1, PC); }
BLKMC_RW(1)
BLKMC_RW(2)
BLKMC_RW(4)
BLKMC_RW(8)
BLKMC_RW(16)

RT void __tsan_read_range(void *p, long n) {
  if (n > 0) blkmc_access(p, (uint64_t)n, 0, PC);
}
RT void __tsan_write_range(void *p, long n) {
  if (n > 0) blkmc_access(p, (uint64_t)n, 1, PC);
}

/* Entry and exit hooks (the build asks for none; clang may still emit). */
RT void __tsan_func_entry(void *pc) { (void)pc; }
RT void __tsan_func_exit(void) {}
RT void __tsan_init(void) {}

/* Atomic operations: the hook does the operation. One scheduler call runs
 * on one thread at a time, so plain code is the atomic operation; the
 * access is checked first. */
#define BLKMC_ATOMIC(bits)                                                                                     \
  typedef uint##bits##_t blkmc_a##bits;                                                                         \
  RT blkmc_a##bits __tsan_atomic##bits##_load(const volatile blkmc_a##bits *a, int mo) {                        \
    (void)mo;                                                                                                   \
    blkmc_access(a, bits / 8, 0, PC);                                                                           \
    return *a;                                                                                                  \
  }                                                                                                             \
  RT void __tsan_atomic##bits##_store(volatile blkmc_a##bits *a, blkmc_a##bits v, int mo) {                     \
    (void)mo;                                                                                                   \
    blkmc_access(a, bits / 8, 1, PC);                                                                           \
    *a = v;                                                                                                     \
  }                                                                                                             \
  BLKMC_RMW(bits, exchange, v)                                                                                  \
  BLKMC_RMW(bits, fetch_add, old + v)                                                                           \
  BLKMC_RMW(bits, fetch_sub, old - v)                                                                           \
  BLKMC_RMW(bits, fetch_and, old & v)                                                                           \
  BLKMC_RMW(bits, fetch_or, old | v)                                                                            \
  BLKMC_RMW(bits, fetch_xor, old ^ v)                                                                           \
  BLKMC_RMW(bits, fetch_nand, (blkmc_a##bits) ~(old & v))                                                       \
  RT int __tsan_atomic##bits##_compare_exchange_strong(volatile blkmc_a##bits *a, blkmc_a##bits *expected,      \
                                                       blkmc_a##bits v, int mo, int fmo) {                      \
    (void)mo;                                                                                                   \
    (void)fmo;                                                                                                  \
    blkmc_access(a, bits / 8, 1, PC);                                                                           \
    if (*a == *expected) {                                                                                      \
      *a = v;                                                                                                   \
      return 1;                                                                                                 \
    }                                                                                                           \
    *expected = *a;                                                                                             \
    return 0;                                                                                                   \
  }                                                                                                             \
  RT int __tsan_atomic##bits##_compare_exchange_weak(volatile blkmc_a##bits *a, blkmc_a##bits *expected,        \
                                                     blkmc_a##bits v, int mo, int fmo) {                        \
    return __tsan_atomic##bits##_compare_exchange_strong(a, expected, v, mo, fmo);                              \
  }                                                                                                             \
  RT blkmc_a##bits __tsan_atomic##bits##_compare_exchange_val(volatile blkmc_a##bits *a, blkmc_a##bits e,       \
                                                              blkmc_a##bits v, int mo, int fmo) {               \
    __tsan_atomic##bits##_compare_exchange_strong(a, &e, v, mo, fmo);                                           \
    return e;                                                                                                   \
  }
#define BLKMC_RMW(bits, name, expr)                                                                  \
  RT blkmc_a##bits __tsan_atomic##bits##_##name(volatile blkmc_a##bits *a, blkmc_a##bits v, int mo) { \
    (void)mo;                                                                                         \
    blkmc_access(a, bits / 8, 1, PC);                                                                 \
    const blkmc_a##bits old = *a;                                                                     \
    *a = expr;                                                                                        \
    return old;                                                                                       \
  }
BLKMC_ATOMIC(8)
BLKMC_ATOMIC(16)
BLKMC_ATOMIC(32)
BLKMC_ATOMIC(64)
#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 uint128_t;
BLKMC_ATOMIC(128)
#endif

RT void __tsan_atomic_thread_fence(int mo) { (void)mo; }
RT void __tsan_atomic_signal_fence(int mo) { (void)mo; }

/* The memory functions: a compiler emits calls to them for copies and
 * clears (with -fno-builtin, every one), and libtsan would intercept them;
 * here they are the object's own, checked as ranges. Byte loops that the
 * compiler must not turn back into calls (this file is compiled with
 * -fno-builtin and without loop-to-call distribution). */
RT void *memset(void *d, int c, size_t n) {
  if (n) blkmc_access(d, n, 1, PC);
  unsigned char *p = d;
  for (size_t i = 0; i < n; ++i) ((volatile unsigned char *)p)[i] = (unsigned char)c;
  return d;
}

RT void *memcpy(void *restrict d, const void *restrict s, size_t n) {
  if (n) {
    blkmc_access(s, n, 0, PC);
    blkmc_access(d, n, 1, PC);
  }
  unsigned char *dp = d;
  const unsigned char *sp = s;
  size_t i = 0;
  if ((((uintptr_t)dp | (uintptr_t)sp) & 7) == 0)
    for (; i + 8 <= n; i += 8) *(volatile uint64_t *)(dp + i) = *(const uint64_t *)(sp + i);
  for (; i < n; ++i) ((volatile unsigned char *)dp)[i] = sp[i];
  return d;
}

RT void *memmove(void *d, const void *s, size_t n) {
  if (n) {
    blkmc_access(s, n, 0, PC);
    blkmc_access(d, n, 1, PC);
  }
  unsigned char *dp = d;
  const unsigned char *sp = s;
  if (dp < sp)
    for (size_t i = 0; i < n; ++i) ((volatile unsigned char *)dp)[i] = sp[i];
  else
    for (size_t i = n; i > 0; --i) ((volatile unsigned char *)dp)[i - 1] = sp[i - 1];
  return d;
}

/* The allocator's fills: its own memory, never checked. */
RT void blkmc_fill(void *d, int c, unsigned long n) {
  for (unsigned long i = 0; i < n; ++i) ((volatile unsigned char *)d)[i] = (unsigned char)c;
}

RT int memcmp(const void *a, const void *b, size_t n) {
  if (n) {
    blkmc_access(a, n, 0, PC);
    blkmc_access(b, n, 0, PC);
  }
  const unsigned char *x = a, *y = b;
  for (size_t i = 0; i < n; ++i)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}
