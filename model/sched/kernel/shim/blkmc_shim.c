/*
 * blkmc_shim.c: the implementations behind blkmc_shim.h, written for blkmc:
 * red-black trees, the elevator helpers a scheduler calls, kzalloc in
 * blkmc's region, sysfs text helpers and kstrto*. Compiled with the user's
 * scheduler file into one shared object (model/sched/kernel/kernel_build.cpp).
 */
#include "blkmc_shim.h"
#include "blkmc_harness.h"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
long strtol(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);
long long strtoll(const char *s, char **end, int base);

__thread unsigned long blkmc_jiffies;

/* ktime follows blkmc's clock: a tick is a millisecond. */
u64 ktime_get_ns(void) { return BLKMC_K0 + (u64)(jiffies - BLKMC_J0) * NSEC_PER_MSEC; }

/* ---- red-black trees ---- */

static inline int rb_black(const struct rb_node *n) { return !n || (n->__rb_parent_color & 1); }
static inline void rb_set_parent(struct rb_node *n, struct rb_node *p) {
  n->__rb_parent_color = (unsigned long)p | (n->__rb_parent_color & 1);
}
static inline void rb_set_black(struct rb_node *n) { n->__rb_parent_color |= 1; }
static inline void rb_set_red(struct rb_node *n) { n->__rb_parent_color &= ~1UL; }
static inline void rb_copy_color(struct rb_node *n, const struct rb_node *from) {
  n->__rb_parent_color = (n->__rb_parent_color & ~1UL) | (from->__rb_parent_color & 1);
}
static void rb_replace_child(struct rb_node *old, struct rb_node *n, struct rb_node *parent, struct rb_root *root) {
  if (!parent)
    root->rb_node = n;
  else if (parent->rb_left == old)
    parent->rb_left = n;
  else
    parent->rb_right = n;
}
static void rb_rotate_left(struct rb_node *x, struct rb_root *root) {
  struct rb_node *y = x->rb_right, *p = rb_parent(x);
  x->rb_right = y->rb_left;
  if (y->rb_left) rb_set_parent(y->rb_left, x);
  rb_set_parent(y, p);
  rb_replace_child(x, y, p, root);
  y->rb_left = x;
  rb_set_parent(x, y);
}
static void rb_rotate_right(struct rb_node *x, struct rb_root *root) {
  struct rb_node *y = x->rb_left, *p = rb_parent(x);
  x->rb_left = y->rb_right;
  if (y->rb_right) rb_set_parent(y->rb_right, x);
  rb_set_parent(y, p);
  rb_replace_child(x, y, p, root);
  y->rb_right = x;
  rb_set_parent(x, y);
}

/* The harness rebuilds every tree that changed into one canonical shape. */
static void blkmc_note_root(struct rb_root *root) {
  struct blkmc_region *r = blkmc_cur;
  const uintptr_t base = (uintptr_t)r, p = (uintptr_t)root;
  if (!r || p < base || p >= base + r->size) return;
  for (int i = 0; i < r->nroots; ++i)
    if (r->roots[i] == p - base) {
      r->roots_dirty |= 1ULL << i;
      return;
    }
  if (r->nroots < BLKMC_MAX_ROOTS) {
    r->roots_dirty |= 1ULL << r->nroots;
    r->roots[r->nroots++] = p - base;
  }
}

/* node was linked red below its parent (rb_link_node): restore the colours. */
void rb_insert_color(struct rb_node *node, struct rb_root *root) {
  struct rb_node *parent, *g, *uncle;
  blkmc_note_root(root);
  while ((parent = rb_parent(node)) && !rb_black(parent)) {
    g = rb_parent(parent); /* a red node is never the root */
    if (parent == g->rb_left) {
      uncle = g->rb_right;
      if (!rb_black(uncle)) {
        rb_set_black(uncle);
        rb_set_black(parent);
        rb_set_red(g);
        node = g;
        continue;
      }
      if (node == parent->rb_right) {
        rb_rotate_left(parent, root);
        node = parent;
        parent = rb_parent(node);
      }
      rb_set_black(parent);
      rb_set_red(g);
      rb_rotate_right(g, root);
    } else {
      uncle = g->rb_left;
      if (!rb_black(uncle)) {
        rb_set_black(uncle);
        rb_set_black(parent);
        rb_set_red(g);
        node = g;
        continue;
      }
      if (node == parent->rb_left) {
        rb_rotate_right(parent, root);
        node = parent;
        parent = rb_parent(node);
      }
      rb_set_black(parent);
      rb_set_red(g);
      rb_rotate_left(g, root);
    }
  }
  rb_set_black(root->rb_node);
}

/* A black node left the path through x (x may be NULL, below parent). */
static void rb_erase_fixup(struct rb_node *x, struct rb_node *parent, struct rb_root *root) {
  struct rb_node *w;
  while (x != root->rb_node && rb_black(x)) {
    if (x == parent->rb_left) {
      w = parent->rb_right;
      if (!rb_black(w)) {
        rb_set_black(w);
        rb_set_red(parent);
        rb_rotate_left(parent, root);
        w = parent->rb_right;
      }
      if (rb_black(w->rb_left) && rb_black(w->rb_right)) {
        rb_set_red(w);
        x = parent;
        parent = rb_parent(x);
      } else {
        if (rb_black(w->rb_right)) {
          rb_set_black(w->rb_left);
          rb_set_red(w);
          rb_rotate_right(w, root);
          w = parent->rb_right;
        }
        rb_copy_color(w, parent);
        rb_set_black(parent);
        rb_set_black(w->rb_right);
        rb_rotate_left(parent, root);
        x = root->rb_node;
        break;
      }
    } else {
      w = parent->rb_left;
      if (!rb_black(w)) {
        rb_set_black(w);
        rb_set_red(parent);
        rb_rotate_right(parent, root);
        w = parent->rb_left;
      }
      if (rb_black(w->rb_left) && rb_black(w->rb_right)) {
        rb_set_red(w);
        x = parent;
        parent = rb_parent(x);
      } else {
        if (rb_black(w->rb_left)) {
          rb_set_black(w->rb_right);
          rb_set_red(w);
          rb_rotate_left(w, root);
          w = parent->rb_left;
        }
        rb_copy_color(w, parent);
        rb_set_black(parent);
        rb_set_black(w->rb_left);
        rb_rotate_right(parent, root);
        x = root->rb_node;
        break;
      }
    }
  }
  if (x) rb_set_black(x);
}

void rb_erase(struct rb_node *z, struct rb_root *root) {
  struct rb_node *child, *parent;
  int black;
  blkmc_note_root(root);
  if (!z->rb_left || !z->rb_right) {
    child = z->rb_left ? z->rb_left : z->rb_right;
    parent = rb_parent(z);
    black = rb_black(z);
    if (child) rb_set_parent(child, parent);
    rb_replace_child(z, child, parent, root);
  } else {
    struct rb_node *y = z->rb_right;
    while (y->rb_left) y = y->rb_left; /* z's successor takes its place */
    black = rb_black(y);
    child = y->rb_right;
    parent = rb_parent(y);
    if (parent == z) {
      parent = y;
    } else {
      if (child) rb_set_parent(child, parent);
      parent->rb_left = child;
      y->rb_right = z->rb_right;
      rb_set_parent(z->rb_right, y);
    }
    y->rb_left = z->rb_left;
    rb_set_parent(z->rb_left, y);
    rb_replace_child(z, y, rb_parent(z), root);
    y->__rb_parent_color = z->__rb_parent_color;
  }
  if (black) rb_erase_fixup(child, parent, root);
}

void rb_replace_node(struct rb_node *victim, struct rb_node *n, struct rb_root *root) {
  struct rb_node *parent = rb_parent(victim);
  blkmc_note_root(root);
  *n = *victim;
  if (victim->rb_left) rb_set_parent(victim->rb_left, n);
  if (victim->rb_right) rb_set_parent(victim->rb_right, n);
  rb_replace_child(victim, n, parent, root);
}

struct rb_node *rb_first(const struct rb_root *root) {
  struct rb_node *n = root->rb_node;
  if (!n) return NULL;
  while (n->rb_left) n = n->rb_left;
  return n;
}

struct rb_node *rb_last(const struct rb_root *root) {
  struct rb_node *n = root->rb_node;
  if (!n) return NULL;
  while (n->rb_right) n = n->rb_right;
  return n;
}

struct rb_node *rb_next(const struct rb_node *node) {
  struct rb_node *parent;
  if (RB_EMPTY_NODE(node)) return NULL;
  if (node->rb_right) {
    node = node->rb_right;
    while (node->rb_left) node = node->rb_left;
    return (struct rb_node *)node;
  }
  while ((parent = rb_parent(node)) && node == parent->rb_right) node = parent;
  return parent;
}

struct rb_node *rb_prev(const struct rb_node *node) {
  struct rb_node *parent;
  if (RB_EMPTY_NODE(node)) return NULL;
  if (node->rb_left) {
    node = node->rb_left;
    while (node->rb_right) node = node->rb_right;
    return (struct rb_node *)node;
  }
  while ((parent = rb_parent(node)) && node == parent->rb_left) node = parent;
  return parent;
}

/* The canonical shape of a tree: its in-order nodes rebuilt by halving,
 * the levels that are full black, the last (partial) level red. Shape is
 * no observable of the code (every lookup depends on the order only), so
 * two states whose trees hold the same order are one. */
static struct rb_node *rb_build(struct rb_node **v, int lo, int hi, int depth, int full,
                                struct rb_node *parent) {
  if (lo >= hi) return NULL;
  const int mid = lo + (hi - lo) / 2;
  struct rb_node *n = v[mid];
  n->__rb_parent_color = (unsigned long)parent | (depth < full ? RB_BLACK : RB_RED);
  n->rb_left = rb_build(v, lo, mid, depth + 1, full, n);
  n->rb_right = rb_build(v, mid + 1, hi, depth + 1, full, n);
  return n;
}

int blkmc_rb_canon(struct rb_root *root) {
  struct rb_node *v[1024];
  int n = 0, full = 0;
  for (struct rb_node *x = rb_first(root); x; x = rb_next(x)) {
    if (n == 1024) return -1;
    v[n++] = x;
  }
  while ((1 << (full + 1)) <= n + 1) ++full; /* floor(log2(n + 1)) */
  root->rb_node = rb_build(v, 0, n, 0, full, NULL);
  return n;
}

/* Red-black invariants of a tree: black root, no red child of a red node,
 * the same black count on every path, parents that point back; the
 * number of nodes, or -1. */
static int rb_check(const struct rb_node *n, const struct rb_node *parent, int *black) {
  if (!n) {
    *black = 1;
    return 0;
  }
  if (rb_parent(n) != parent) return -1;
  if (!rb_black(n) && parent && !rb_black(parent)) return -1;
  int bl, br;
  const int l = rb_check(n->rb_left, n, &bl), r = rb_check(n->rb_right, n, &br);
  if (l < 0 || r < 0 || bl != br) return -1;
  *black = bl + rb_black(n);
  return l + r + 1;
}

int blkmc_rb_valid(const struct rb_root *root) {
  int black;
  if (root->rb_node && !rb_black(root->rb_node)) return -1;
  return rb_check(root->rb_node, NULL, &black);
}

/* ---- memory ---- */

/* kmalloc after init: small objects from a pool of their own (BFQ's weight
 * counters), made at module init like the scheduler's own caches. */
#define BLKMC_KMALLOC_MAX 64
static struct kmem_cache *blkmc_kmalloc_cache;

void blkmc_kmalloc_setup(void) {
  if (!blkmc_kmalloc_cache) blkmc_kmalloc_cache = kmem_cache_create("kmalloc-64", BLKMC_KMALLOC_MAX, 16, 0, NULL);
}

void *blkmc_alloc(size_t size, gfp_t flags) {
  struct blkmc_region *r = blkmc_cur;
  if (r->frozen && size <= BLKMC_KMALLOC_MAX && blkmc_kmalloc_cache)
    return kmem_cache_alloc(blkmc_kmalloc_cache, flags);
  if (r->frozen || r->nobjs == BLKMC_MAX_OBJS) {
    blkmc_harness_error("kmalloc(%zu) after the scheduler's init: blkmc's state holds the memory init allocates, "
                        "and objects of at most %d bytes after it", size, BLKMC_KMALLOC_MAX);
    return NULL;
  }
  const uint64_t at = (r->arena_used + 15) & ~15ULL, end = at + ((size + 15) & ~15ULL);
  if (end + BLKMC_REDZONE > r->arena_cap) {
    blkmc_harness_error("kmalloc(%zu): the arena of %llu bytes is full", size, (unsigned long long)r->arena_cap);
    return NULL;
  }
  char *p = (char *)r + r->arena_off + at;
  blkmc_fill(p, (flags & __GFP_ZERO) ? 0 : 0xcc, end - at);
  blkmc_fill(p + (end - at), BLKMC_REDZONE_BYTE, BLKMC_REDZONE);
  struct blkmc_obj *o = &r->objs[r->nobjs];
  o->off = r->arena_off + at;
  o->size = end - at;
  o->req = size;
  o->pc = (uint64_t)(uintptr_t)__builtin_return_address(0);
  o->pool = -1;
  o->pool_index = 0;
  for (uint64_t g = at / BLKMC_GRANULE; g < (end + BLKMC_REDZONE) / BLKMC_GRANULE; ++g)
    r->gran[g] = (uint8_t)(r->nobjs + 1);
  r->nobjs++;
  r->arena_used = end + BLKMC_REDZONE;
  return p;
}

/* Whether p lies in cache c's pool of this region. */
static int blkmc_in_pool(const struct blkmc_region *r, const struct kmem_cache *c, const void *p) {
  if (!c || c->id >= r->npools) return 0;
  const struct blkmc_pool *pl = &r->pools[c->id];
  const uint64_t off = (uint64_t)((const char *)p - (const char *)r);
  return off >= pl->first_off && off < pl->first_off + (uint64_t)pl->n * pl->stride;
}

void kfree(const void *p) {
  struct blkmc_region *r = blkmc_cur;
  if (!p) return;
  if (blkmc_in_pool(r, blkmc_kmalloc_cache, p)) {
    kmem_cache_free(blkmc_kmalloc_cache, (void *)p);
    return;
  }
  for (int i = 0; i < r->nobjs; ++i)
    if ((const char *)r + r->objs[i].off == (const char *)p) {
      uint64_t *freed = r->freed_off ? (uint64_t *)((char *)r + r->freed_off) : NULL;
      if (freed && ((freed[i / 64] >> (i % 64)) & 1))
        blkmc_bug(__FILE__, __LINE__, "kfree() of a freed object (a double free)");
      blkmc_fill((char *)r + r->objs[i].off, BLKMC_FREE_BYTE, r->objs[i].size);
      if (freed) freed[i / 64] |= 1ULL << (i % 64);
      return;
    }
  blkmc_bug(__FILE__, __LINE__, "kfree() of a pointer kmalloc did not return");
}

/* ---- slab caches: a pool of objects per cache in every region ---- */

static struct kmem_cache blkmc_caches[BLKMC_MAX_POOLS];
static int blkmc_ncaches;

/* At module init (once per loaded object): the cache's descriptor. Its
 * objects come from the pool init lays out in each region (harness.c). */
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align, unsigned int flags,
                                     void (*ctor)(void *)) {
  (void)flags;
  if (ctor) blkmc_harness_error("kmem_cache_create(%s) with a constructor", name);
  if (blkmc_ncaches == BLKMC_MAX_POOLS) blkmc_harness_error("more than %d slab caches", BLKMC_MAX_POOLS);
  struct kmem_cache *c = &blkmc_caches[blkmc_ncaches];
  c->name = name;
  c->size = size;
  c->align = align;
  c->id = blkmc_ncaches++;
  return c;
}

int blkmc_cache_count(void) { return blkmc_ncaches; }
struct kmem_cache *blkmc_cache(int i) { return &blkmc_caches[i]; }

void *kmem_cache_alloc(struct kmem_cache *c, gfp_t flags) {
  struct blkmc_region *r = blkmc_cur;
  if (!c || c->id >= r->npools) blkmc_harness_error("kmem_cache_alloc from a cache without a pool");
  const struct blkmc_pool *p = &r->pools[c->id];
  uint64_t *map = (uint64_t *)((char *)r + p->map_off);
  for (uint32_t i = 0; i < p->n; ++i)
    if (!((*map >> i) & 1)) {
      char *o = (char *)r + p->first_off + (uint64_t)i * p->stride;
      *map |= 1ULL << i;
      blkmc_fill(o, (flags & __GFP_ZERO) ? 0 : 0xcc, c->size);
      return o;
    }
  blkmc_harness_error("kmem_cache_alloc(%s): its pool of %u objects is in use (blkmc lays out a fixed pool per cache)",
                      c->name, p->n);
}

void kmem_cache_free(struct kmem_cache *c, void *o) {
  struct blkmc_region *r = blkmc_cur;
  if (!o) return;
  if (!c || c->id >= r->npools) blkmc_bug(__FILE__, __LINE__, "kmem_cache_free to a cache without a pool");
  const struct blkmc_pool *p = &r->pools[c->id];
  uint64_t *map = (uint64_t *)((char *)r + p->map_off);
  const uint64_t off = (uint64_t)((char *)o - (char *)r);
  if (off < p->first_off || (off - p->first_off) % p->stride || (off - p->first_off) / p->stride >= p->n)
    blkmc_bug(__FILE__, __LINE__, "kmem_cache_free() of an object not from its cache");
  const uint32_t i = (uint32_t)((off - p->first_off) / p->stride);
  if (!((*map >> i) & 1)) blkmc_bug(__FILE__, __LINE__, "kmem_cache_free() of a free object (a double free)");
  *map &= ~(1ULL << i);
  blkmc_fill(o, BLKMC_FREE_BYTE, c->size);
}

void kmem_cache_destroy(struct kmem_cache *c) { (void)c; }

/* ---- hrtimers: armed in the region, fired by the harness ---- */

void hrtimer_init(struct hrtimer *t, clockid_t clock, enum hrtimer_mode mode) {
  struct blkmc_region *r = blkmc_cur;
  (void)clock;
  (void)mode;
  memset(t, 0, sizeof(*t));
  if (r->frozen) blkmc_harness_error("hrtimer_init after the scheduler's init");
  if (r->ntimers == BLKMC_MAX_TIMERS) blkmc_harness_error("more than %d hrtimers", BLKMC_MAX_TIMERS);
  r->timers[r->ntimers++] = (uint64_t)((char *)t - (char *)r);
}

void hrtimer_start(struct hrtimer *t, ktime_t tim, enum hrtimer_mode mode) {
  t->expires = mode == HRTIMER_MODE_REL ? (ktime_t)ktime_get_ns() + tim : tim;
  t->active = 1;
}

int hrtimer_try_to_cancel(struct hrtimer *t) {
  const int was = t->active != 0;
  t->active = 0;
  return was;
}

int hrtimer_cancel(struct hrtimer *t) { return hrtimer_try_to_cancel(t); }

/* ---- processes and I/O contexts ---- */

__thread struct task_struct *blkmc_current;

struct io_cq *ioc_lookup_icq(struct request_queue *q) {
  struct io_context *ioc = current ? current->io_context : NULL;
  if (!ioc || !ioc->icq || ioc->icq->q != q) return NULL;
  return ioc->icq;
}

/* The submitter's io_cq for q, made the first time (the elevator's
 * icq_cache, then its init_icq), with a reference on its io_context. */
struct io_cq *ioc_find_get_icq(struct request_queue *q) {
  struct io_context *ioc = current ? current->io_context : NULL;
  struct elevator_type *e = q->elevator->type;
  if (!ioc) blkmc_harness_error("ioc_find_get_icq from blkmc's kernel thread (no process submits here)");
  atomic_long_inc(&ioc->refcount);
  if (!ioc->icq) {
    if (!e->icq_cache) blkmc_harness_error("ioc_find_get_icq for an elevator without an icq cache");
    struct io_cq *icq = kmem_cache_alloc(e->icq_cache, GFP_ATOMIC | __GFP_ZERO);
    icq->q = q;
    icq->ioc = ioc;
    INIT_LIST_HEAD(&icq->q_node);
    INIT_HLIST_NODE(&icq->ioc_node);
    ioc->icq = icq;
    if (e->ops.init_icq) e->ops.init_icq(icq);
  }
  return ioc->icq;
}

/* The process holds the first reference for as long as it lives. */
void put_io_context(struct io_context *ioc) {
  if (atomic_long_read(&ioc->refcount) <= 1) blkmc_bug(__FILE__, __LINE__, "put_io_context() of the last reference");
  ioc->refcount.counter--;
}

void kobject_put(struct kobject *k) {
  if (k && --k->refcount == 0) kfree(container_of(k, struct elevator_queue, kobj));
}

/* ---- sysfs text ---- */

int sysfs_emit(char *buf, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(buf, PAGE_SIZE, fmt, ap);
  va_end(ap);
  return n < (int)PAGE_SIZE ? n : (int)PAGE_SIZE - 1;
}

int scnprintf(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  if (!size) return 0;
  va_start(ap, fmt);
  const int n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n < (int)size ? n : (int)size - 1;
}

/* The kernel's kstrto*: the whole string is the number (one trailing
 * newline allowed), else -EINVAL; out of range -ERANGE. */
static int blkmc_kstrtoll(const char *s, unsigned int base, long long *res, bool is_signed) {
  char *end;
  if (!*s || *s == ' ' || *s == '\t' || (!is_signed && *s == '-')) return -EINVAL;
  if (*s == '+') ++s;
  if (is_signed) {
    const long long v = strtoll(s, &end, (int)base);
    *res = v;
  } else {
    const unsigned long long v = strtoull(s, &end, (int)base);
    *res = (long long)v;
  }
  if (end == s) return -EINVAL;
  if (*end == '\n') ++end;
  if (*end) return -EINVAL;
  return 0;
}

int kstrtoll(const char *s, unsigned int base, long long *res) { return blkmc_kstrtoll(s, base, res, true); }

int kstrtoint(const char *s, unsigned int base, int *res) {
  long long v;
  const int e = blkmc_kstrtoll(s, base, &v, true);
  if (e) return e;
  if (v < INT_MIN || v > INT_MAX) return -ERANGE;
  *res = (int)v;
  return 0;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res) {
  long long v;
  const int e = blkmc_kstrtoll(s, base, &v, false);
  if (e) return e;
  if ((unsigned long long)v > UINT_MAX) return -ERANGE;
  *res = (unsigned int)v;
  return 0;
}

int kstrtoul(const char *s, unsigned int base, unsigned long *res) {
  long long v;
  const int e = blkmc_kstrtoll(s, base, &v, false);
  if (!e) *res = (unsigned long)v;
  return e;
}

int kstrtoull(const char *s, unsigned int base, unsigned long long *res) {
  long long v;
  const int e = blkmc_kstrtoll(s, base, &v, false);
  if (!e) *res = (unsigned long long)v;
  return e;
}

int kstrtobool(const char *s, bool *res) {
  if (!s || !*s) return -EINVAL;
  switch (s[0]) {
    case 'y': case 'Y': case 't': case 'T': case '1':
      *res = true;
      return 0;
    case 'n': case 'N': case 'f': case 'F': case '0':
      *res = false;
      return 0;
    case 'o': case 'O':
      if (s[1] == 'n' || s[1] == 'N') { *res = true; return 0; }
      if (s[1] == 'f' || s[1] == 'F') { *res = false; return 0; }
      return -EINVAL;
    default:
      return -EINVAL;
  }
}

/* ---- the elevator ---- */

struct elevator_queue *elevator_alloc(struct request_queue *q, struct elevator_type *e) {
  struct elevator_queue *eq = kzalloc_node(sizeof(*eq), GFP_KERNEL, q->node);
  if (!eq) return NULL;
  eq->type = e;
  eq->kobj.refcount = 1;
  blkmc_cur->eq_off = (uint64_t)((char *)eq - (char *)blkmc_cur);
  return eq;
}

/* Sorted by start sector; a request equal to others goes after them. */
void elv_rb_add(struct rb_root *root, struct request *rq) {
  struct rb_node **p = &root->rb_node, *parent = NULL;
  while (*p) {
    parent = *p;
    if (blk_rq_pos(rq) < blk_rq_pos(rb_entry_rq(parent)))
      p = &(*p)->rb_left;
    else
      p = &(*p)->rb_right;
  }
  rb_link_node(&rq->rb_node, parent, p);
  rb_insert_color(&rq->rb_node, root);
}

void elv_rb_del(struct rb_root *root, struct request *rq) {
  BUG_ON(RB_EMPTY_NODE(&rq->rb_node));
  rb_erase(&rq->rb_node, root);
  RB_CLEAR_NODE(&rq->rb_node);
}

struct request *elv_rb_find(struct rb_root *root, sector_t sector) {
  struct rb_node *n = root->rb_node;
  while (n) {
    struct request *rq = rb_entry_rq(n);
    if (sector < blk_rq_pos(rq))
      n = n->rb_left;
    else if (sector > blk_rq_pos(rq))
      n = n->rb_right;
    else
      return rq;
  }
  return NULL;
}

struct request *elv_rb_former_request(struct request_queue *q, struct request *rq) {
  (void)q;
  struct rb_node *n = rb_prev(&rq->rb_node);
  return n ? rb_entry_rq(n) : NULL;
}

struct request *elv_rb_latter_request(struct request_queue *q, struct request *rq) {
  (void)q;
  struct rb_node *n = rb_next(&rq->rb_node);
  return n ? rb_entry_rq(n) : NULL;
}

/* The hash only serves back-merge lookups, which blkmc does not drive:
 * what remains is the flag a scheduler can see. */
void elv_rqhash_add(struct request_queue *q, struct request *rq) {
  (void)q;
  rq->rq_flags |= RQF_HASHED;
}

void elv_rqhash_del(struct request_queue *q, struct request *rq) {
  (void)q;
  rq->rq_flags &= ~RQF_HASHED;
}

/* Merges: the queue is nomerges=2, as blkmc's device runs set it. */
bool elv_bio_merge_ok(struct request *rq, struct bio *bio) {
  (void)rq;
  (void)bio;
  return false;
}

bool blk_mq_sched_try_merge(struct request_queue *q, struct bio *bio, unsigned int nr_segs,
                            struct request **merged_request) {
  (void)q;
  (void)bio;
  (void)nr_segs;
  (void)merged_request;
  return false;
}

bool blk_mq_sched_try_insert_merge(struct request_queue *q, struct request *rq, struct list_head *free) {
  (void)q;
  (void)rq;
  (void)free;
  return false;
}

void blk_mq_free_requests(struct list_head *list) {
  if (!list_empty(list)) blkmc_harness_error("a request was merged away, and blkmc drives no merges");
}

void blk_mq_free_request(struct request *rq) {
  (void)rq;
  blkmc_harness_error("blk_mq_free_request() from the scheduler (a merge), which blkmc does not drive");
}

void sbitmap_queue_min_shallow_depth(struct sbitmap_queue *sbq, unsigned int depth) {
  sbq->min_shallow_depth = depth;
}
