/*
 * harness.c: blk-mq around the user's scheduler file, as blkmc drives it.
 * It includes the file itself (as the kernel's tools/testing/vma includes
 * mm/vma.c), so it reaches the file's elevator_type through module_init()
 * and the file's private structs by name (the walkers). Every entry is one
 * call of blkmc_k_call(): one scheduler call, under the elevator lock in
 * the kernel, so one atomic step. Written for blkmc.
 *
 * The blk-mq paths it stands for (BLKMC_KV selects the version's):
 *   ALLOC    blk_mq_rq_ctx_init: .limit_depth, then .prepare_request for
 *            a request that goes through the scheduler (not a flush)
 *   INSERT   blk_mq_insert_request: .insert_requests with one request
 *   DISPATCH blk_mq_do_dispatch_sched: .dispatch_request
 *   FINISH   blk_mq_free_request: .finish_request if prepared, slot freed
 *   REQUEUE  blk_mq_requeue_request + blk_mq_requeue_work: .requeue_request,
 *            then .insert_requests at head
 */
#include "blkmc_shim.h"
#include "blkmc_harness.h"

#include <setjmp.h>

#include BLKMC_FILE

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

#define BLKMC_EXPORT __attribute__((__visibility__("default")))

__thread struct blkmc_region *blkmc_cur;
__thread struct blkmc_region *blkmc_check;
__thread void *blkmc_call_frame;
static __thread sigjmp_buf *blkmc_jmp;
static __thread volatile int blkmc_in_call;
static struct elevator_type *blkmc_elv;

int elv_register(struct elevator_type *e) {
  /* As the kernel's elv_register: the elevator's io_cq cache. */
  if (e->icq_size) {
    snprintf(e->icq_cache_name, sizeof e->icq_cache_name, "%s_io_cq", e->elevator_name);
    e->icq_cache = kmem_cache_create(e->icq_cache_name, (unsigned int)e->icq_size, (unsigned int)e->icq_align, 0, NULL);
  }
  blkmc_elv = e;
  return 0;
}

void elv_unregister(struct elevator_type *e) { (void)e; }

static void blkmc_end(int status, const char *text) __attribute__((__noreturn__));
static void blkmc_end(int status, const char *text) {
  struct blkmc_region *r = blkmc_cur;
  if (r) {
    r->status = status;
    snprintf(r->what, sizeof r->what, "%s", text);
  }
  siglongjmp(*blkmc_jmp, status);
}

void blkmc_bug(const char *file, int line, const char *what) {
  char text[240];
  const char *base = file;
  for (const char *p = file; *p; ++p)
    if (*p == '/') base = p + 1;
  snprintf(text, sizeof text, "%s at %s:%d", what, base, line);
  blkmc_end(BLKMC_BUG, text);
}

void blkmc_warn(const char *file, int line, const char *what) {
  struct blkmc_region *r = blkmc_cur;
  const char *base = file;
  for (const char *p = file; *p; ++p)
    if (*p == '/') base = p + 1;
  if (r && !r->warned) {
    r->warned = 1;
    snprintf(r->what, sizeof r->what, "%s at %s:%d", what, base, line);
  }
}

/* The scheduler's code runs with its accesses checked (blkmc_tsan.c):
 * blk-mq's own steps around it (a request's set-up and poisoning, the
 * walkers, the canonical form) are the allocator's and are not. */
#define BLKMC_CHECKED(r, call)                                                                   \
  do {                                                                                           \
    blkmc_check = (r);                                                                           \
    call;                                                                                        \
    blkmc_check = NULL;                                                                          \
  } while (0)

/* From blkmc_tsan.c, the checks off: region->mem says what was accessed. */
void blkmc_mem_error(void) {
  static const char *const kind_text[] = {
      [BLKMC_MEM_FREE_RQ] = "use-after-free", [BLKMC_MEM_FREE_OBJ] = "use-after-free",
      [BLKMC_MEM_OOB_RQ] = "out-of-bounds", [BLKMC_MEM_OOB_OBJ] = "out-of-bounds", [BLKMC_MEM_WILD] = "wild access"};
  struct blkmc_region *r = blkmc_cur;
  const struct blkmc_memerr *m = &r->mem;
  char text[240], what[120];
  if (m->slot >= 0)
    snprintf(what, sizeof what, "%s %d", m->kind == BLKMC_MEM_FREE_RQ ? "the free request slot" : "request slot",
             m->slot);
  else if (m->obj >= 0 && m->pool >= 0)
    snprintf(what, sizeof what, "%s %s object %d (%llu bytes)", m->kind == BLKMC_MEM_FREE_OBJ ? "a free" : "a",
             blkmc_cache(m->pool)->name, r->objs[m->obj].pool_index, (unsigned long long)r->objs[m->obj].req);
  else if (m->obj >= 0)
    snprintf(what, sizeof what, "%s kmalloc'd object %d (%llu bytes)", m->kind == BLKMC_MEM_FREE_OBJ ? "a kfree'd" : "a",
             m->obj, (unsigned long long)r->objs[m->obj].req);
  else
    snprintf(what, sizeof what, "the arena where nothing is allocated");
  snprintf(text, sizeof text, "%s: %s of size %u at offset %lld of %s%s",
           m->kind > 0 && m->kind <= BLKMC_MEM_WILD ? kind_text[m->kind] : "?", m->write ? "write" : "read",
           m->size, (long long)m->at, what,
           m->kind == BLKMC_MEM_OOB_OBJ && m->write ? " (a write past the end of a kmalloc'd object)" : "");
  blkmc_end(BLKMC_MEMORY, text);
}

void blkmc_harness_error(const char *fmt, ...) {
  char text[240];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  blkmc_end(BLKMC_HARNESS, text);
}

/* From blkmc's signal handler, on the thread the signal hit: ends the call
 * (returns only when no call is running there). */
BLKMC_EXPORT void blkmc_k_fault(int status, const char *text) {
  if (blkmc_in_call) blkmc_end(status, text);
}

BLKMC_EXPORT int blkmc_k_abi(void) { return BLKMC_ABI; }
BLKMC_EXPORT unsigned long blkmc_k_slot_size(void) { return sizeof(struct request); }
BLKMC_EXPORT unsigned long blkmc_k_state_bytes(void) { return offsetof(struct request, hash); }

static long blkmc_init_module(void) {
  if (blkmc_elv) return 0;
  blkmc_kmalloc_setup();
  const int e = blkmc_module_init();
  if (e) return e;
  return blkmc_elv ? 0 : -ENOENT;
}

BLKMC_EXPORT const char *blkmc_k_elevator_name(void) { return blkmc_elv ? blkmc_elv->elevator_name : ""; }

static struct request *blkmc_slot(struct blkmc_region *r, int i) {
  return (struct request *)((char *)r + r->slots_off + (uint64_t)i * r->slot_stride + r->slot_lead);
}

/* The slot id of a request pointer; -2 for a pointer that is none. */
static int blkmc_rq_id(struct blkmc_region *r, const struct request *rq) {
  const uintptr_t base = (uintptr_t)r + r->slots_off + r->slot_lead, p = (uintptr_t)rq;
  if (p < base || (p - base) % r->slot_stride) return -2;
  const uint64_t i = (p - base) / r->slot_stride;
  return i < (uint64_t)r->nrqs ? (int)i : -2;
}

/* Whether a field of struct request is one of the state words. */
#define BLKMC_RQ_STATE(r, field) (offsetof(struct request, field) < 8 * (size_t)(r)->rq_state_words)

static struct blk_mq_hw_ctx *blkmc_hctx(struct blkmc_region *r) {
  return (struct blk_mq_hw_ctx *)((char *)r + r->hctx_off);
}
static struct request_queue *blkmc_q(struct blkmc_region *r) {
  return (struct request_queue *)((char *)r + r->q_off);
}

/* A freed request: its state words poisoned (a scheduler that follows one
 * of its links faults), the rest as allocated. */
static void blkmc_poison(const struct blkmc_region *r, struct request *rq) {
  blkmc_fill(rq, BLKMC_FREE_BYTE, 8 * (size_t)r->rq_state_words);
}

/* What blk-mq set when it allocated the request: constant for the slot. */
static void blkmc_slot_setup(struct blkmc_region *r, int i) {
  struct request *rq = blkmc_slot(r, i);
  const struct blkmc_rq_spec *s = &r->rqs[i];
  memset(rq, 0, sizeof(*rq));
  blkmc_poison(r, rq);
  rq->q = blkmc_q(r);
  rq->mq_hctx = blkmc_hctx(r);
  if (s->kind == BLKMC_RQ_BYPASS) /* a flush: never through the scheduler */
    rq->cmd_flags = (s->write ? REQ_OP_WRITE : REQ_OP_READ) | REQ_PREFLUSH | REQ_SYNC;
  else if (s->write)
    rq->cmd_flags = REQ_OP_WRITE | (s->sync ? REQ_SYNC | REQ_IDLE : 0);
  else
    rq->cmd_flags = REQ_OP_READ;
  rq->tag = BLK_MQ_NO_TAG;
  rq->internal_tag = i;
  rq->__sector = s->sector;
  rq->__data_len = s->sectors << SECTOR_SHIFT;
  rq->ioprio = s->ioprio;
  rq->timeout = 30 * HZ;
}

/* A list and a tree of requests as request ids (the walkers'). */
static __attribute__((__unused__)) void blkmc_walk_list(struct blkmc_region *r, struct blkmc_idlist *out,
                                                        struct list_head *head) {
  out->n = 0;
  for (struct list_head *p = head->next; p != head && out->n < BLKMC_MAX_RQS; p = p->next) {
    const int id = blkmc_rq_id(r, list_entry(p, struct request, queuelist));
    out->id[out->n++] = (int8_t)id;
    if (id < 0) break;
  }
}

static __attribute__((__unused__)) void blkmc_walk_tree(struct blkmc_region *r, struct blkmc_idlist *out,
                                                        struct rb_root *root) {
  out->n = 0;
  for (struct rb_node *x = rb_first(root); x && out->n < BLKMC_MAX_RQS; x = rb_next(x)) {
    const int id = blkmc_rq_id(r, rb_entry_rq(x));
    out->id[out->n++] = (int8_t)id;
    if (id < 0) break;
  }
}

#ifdef BLKMC_WALK_DEADLINE
#include "walk_deadline.h"
#endif
#ifdef BLKMC_WALK_BFQ
#include "walk_bfq.h"
#endif

/* A slot blk-mq has not allocated (or has freed): poisoned. An allocated
 * request's queuelist always points at a list. */
static int blkmc_slot_free(const struct request *rq) {
  return (uintptr_t)rq->queuelist.next == 0x6b6b6b6b6b6b6b6bUL;
}

static int blkmc_through_sched(const struct blkmc_region *r, int i) {
  return r->rqs[i].kind != BLKMC_RQ_BYPASS;
}

static struct task_struct *blkmc_task(struct blkmc_region *r, int i) {
  return (struct task_struct *)((char *)r + r->tasks_off) + i;
}

/* The workload's processes, each with an io_context, then blkmc's kernel
 * thread (no io_context): `current` of the calls no process makes. */
static void blkmc_tasks_setup(struct blkmc_region *r) {
  struct task_struct *t = kzalloc(sizeof(*t) * (size_t)(r->nprocs + 1), GFP_KERNEL);
  r->tasks_off = (uint64_t)((char *)t - (char *)r);
  for (int i = 0; i <= r->nprocs; ++i) {
    t[i].pid = i < r->nprocs ? 1000 + i : 2;
    snprintf(t[i].comm, sizeof t[i].comm, i < r->nprocs ? "blkmc-p%d" : "kblockd", i);
    if (i == r->nprocs) continue;
    struct io_context *ioc = kzalloc(sizeof(*ioc), GFP_KERNEL);
    atomic_long_set(&ioc->refcount, 1);
    atomic_set(&ioc->active_ref, 1);
    ioc->ioprio = r->procs[i].ioprio;
    t[i].nice = r->procs[i].nice;
    t[i].io_context = ioc;
  }
}

/* Every slab cache's pool: objects laid out by init, all free. */
static void blkmc_pools_setup(struct blkmc_region *r) {
  r->npools = blkmc_cache_count();
  for (int c = 0; c < r->npools; ++c) {
    struct kmem_cache *kc = blkmc_cache(c);
    struct blkmc_pool *p = &r->pools[c];
    uint64_t *map = kzalloc(sizeof(*map), GFP_KERNEL);
    p->map_off = (uint64_t)((char *)map - (char *)r);
    p->n = (uint32_t)(r->pool_objs < BLKMC_MAX_POOL_OBJS ? r->pool_objs : BLKMC_MAX_POOL_OBJS);
    for (uint32_t i = 0; i < p->n; ++i) {
      char *o = kmalloc(kc->size, GFP_KERNEL);
      blkmc_fill(o, BLKMC_FREE_BYTE, kc->size);
      r->objs[r->nobjs - 1].pool = c;
      r->objs[r->nobjs - 1].pool_index = (int32_t)i;
      if (i == 0) p->first_off = (uint64_t)(o - (char *)r);
      if (i == 1) p->stride = (uint32_t)((uint64_t)(o - (char *)r) - p->first_off);
    }
  }
}

static long blkmc_init(struct blkmc_region *r) {
  struct elevator_type *e = blkmc_elv;
  if (!e) blkmc_harness_error("the file registered no elevator (elv_register) in its module init");
  r->rq_size = sizeof(struct request);
  /* Which of init's objects were kfree'd since: state, like the objects. */
  uint64_t *freed = kzalloc(sizeof(uint64_t) * ((BLKMC_MAX_OBJS + 63) / 64), GFP_KERNEL);
  r->freed_off = (uint64_t)((char *)freed - (char *)r);
  struct request_queue *q = kzalloc(sizeof(*q), GFP_KERNEL);
  struct blk_mq_hw_ctx *hctx = kzalloc(sizeof(*hctx), GFP_KERNEL);
  struct blk_mq_tags *tags = kzalloc(sizeof(*tags), GFP_KERNEL);
  struct gendisk *disk = kzalloc(sizeof(*disk), GFP_KERNEL);
  struct backing_dev_info *bdi = kzalloc(sizeof(*bdi), GFP_KERNEL);
  r->q_off = (uint64_t)((char *)q - (char *)r);
  r->hctx_off = (uint64_t)((char *)hctx - (char *)r);
  bdi->name = "blkmc";
  disk->bdi = bdi;
  disk->capacity = 1ULL << 30; /* 512 GiB: every workload sector lies on it */
  snprintf(disk->disk_name, sizeof disk->disk_name, "blkmc0");
  q->disk = disk;
  blkmc_tasks_setup(r);
  blkmc_pools_setup(r);
  q->node = NUMA_NO_NODE;
  q->nr_requests = (unsigned long)r->nr_requests;
  q->queue_depth = (unsigned int)r->depth;
  q->nr_hw_queues = 1;
  blk_queue_flag_set(QUEUE_FLAG_NOMERGES, q); /* nomerges=2 */
  if (!r->rotational) blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
  hctx->queue = q;
  hctx->sched_tags = tags;
  tags->nr_tags = (unsigned int)r->nr_requests;
  tags->bitmap_tags.sb.depth = (unsigned int)r->nr_requests;
  tags->bitmap_tags.sb.shift = 6;
  tags->bitmap_tags.sb.map_nr = ((unsigned int)r->nr_requests + 63) / 64;
  for (int i = 0; i < r->nrqs; ++i) blkmc_slot_setup(r, i);
  int err = 0;
  BLKMC_CHECKED(r, err = e->ops.init_sched(q, e));
  if (err) blkmc_harness_error("%s's init_sched returned %d", e->elevator_name, err);
  if (!q->elevator) blkmc_harness_error("%s's init_sched left q->elevator unset", e->elevator_name);
  if (e->ops.init_hctx) {
    int err2 = 0;
    BLKMC_CHECKED(r, err2 = e->ops.init_hctx(hctx, 0));
    if (err2) blkmc_harness_error("%s's init_hctx returned %d", e->elevator_name, err2);
  }
  r->frozen = 1;
  return 0;
}

static int blkmc_nattrs(void) {
  int n = 0;
  if (blkmc_elv && blkmc_elv->elevator_attrs)
    while (blkmc_elv->elevator_attrs[n].attr.name) ++n;
  return n;
}

static long blkmc_store(struct blkmc_region *r, int a) {
  if (a < 0 || a >= blkmc_nattrs()) return -EINVAL;
  struct elv_fs_entry *at = &blkmc_elv->elevator_attrs[a];
  if (!at->store) return -EPERM;
  char text[64];
  snprintf(text, sizeof text, "%s", r->what);
  long n = 0;
  BLKMC_CHECKED(r, n = at->store(blkmc_q(r)->elevator, text, strlen(text)));
  return n;
}

static long blkmc_show(struct blkmc_region *r, int a) {
  char page[PAGE_SIZE];
  if (a < 0 || a >= blkmc_nattrs()) return -EINVAL;
  struct elv_fs_entry *at = &blkmc_elv->elevator_attrs[a];
  if (!at->show) return -EPERM;
  long n = 0;
  BLKMC_CHECKED(r, n = at->show(blkmc_q(r)->elevator, page));
  snprintf(r->what, sizeof r->what, "%.*s", n > 0 ? (int)n : 0, page);
  return n;
}

static long blkmc_attr_name(struct blkmc_region *r, int a) {
  if (a < 0 || a >= blkmc_nattrs()) return -1;
  snprintf(r->what, sizeof r->what, "%s", blkmc_elv->elevator_attrs[a].attr.name);
  return a;
}

/* blk_mq_rq_ctx_init for request i: the scheduler's view of a new request. */
static long blkmc_alloc_rq(struct blkmc_region *r, int i) {
  struct elevator_type *e = blkmc_elv;
  struct request *rq = blkmc_slot(r, i);
  struct blk_mq_alloc_data data = {
      .q = blkmc_q(r), .cmd_flags = rq->cmd_flags, .hctx = blkmc_hctx(r), .nr_tags = 1};
  INIT_LIST_HEAD(&rq->queuelist);
  RB_CLEAR_NODE(&rq->rb_node);
  rq->fifo_time = 0;
  rq->blkmc_pad = 0;
  rq->elv.priv[0] = NULL;
  if (BLKMC_RQ_STATE(r, elv.priv[1])) rq->elv.priv[1] = NULL; /* else constant NULL */
  if (BLKMC_RQ_STATE(r, elv.icq)) rq->elv.icq = NULL;
#if BLKMC_KV_6_5
  rq->rq_flags = RQF_SCHED_TAGS;
  if (blkmc_through_sched(r, i)) {
    rq->rq_flags |= RQF_USE_SCHED;
    if (e->ops.limit_depth) BLKMC_CHECKED(r, e->ops.limit_depth(data.cmd_flags, &data));
    if (e->ops.prepare_request) BLKMC_CHECKED(r, e->ops.prepare_request(rq));
  }
#else
  rq->rq_flags = RQF_ELV;
  if (blkmc_through_sched(r, i)) {
    if (e->ops.limit_depth) BLKMC_CHECKED(r, e->ops.limit_depth(data.cmd_flags, &data));
    if (e->ops.prepare_request) {
      BLKMC_CHECKED(r, e->ops.prepare_request(rq));
      rq->rq_flags |= RQF_ELVPRIV;
    }
  }
#endif
  return (long)data.shallow_depth;
}

static void blkmc_insert_rq(struct blkmc_region *r, int i, int at_head) {
  struct request *rq = blkmc_slot(r, i);
  LIST_HEAD(list);
  list_add(&rq->queuelist, &list);
#if BLKMC_KV_6_5
  BLKMC_CHECKED(r, blkmc_elv->ops.insert_requests(blkmc_hctx(r), &list, at_head ? BLK_MQ_INSERT_AT_HEAD : 0));
#else
  BLKMC_CHECKED(r, blkmc_elv->ops.insert_requests(blkmc_hctx(r), &list, at_head != 0));
#endif
  if (!list_empty(&list)) blkmc_harness_error("insert_requests left the request on the caller's list");
}

/* Fires every armed hrtimer whose expiry has come; with clock=0 (time
 * never passes) every armed one: the timer firing before anything else
 * happens is one of the interleavings. */
static long blkmc_timers(struct blkmc_region *r) {
  const ktime_t now = (ktime_t)ktime_get_ns();
  r->fired = 0;
  for (int i = 0; i < r->ntimers; ++i) {
    struct hrtimer *t = (struct hrtimer *)((char *)r + r->timers[i]);
    if (!t->active || (r->clock && t->expires > now)) continue;
    t->active = 0;
    ++r->fired;
    int restart = 0;
    if (t->function) BLKMC_CHECKED(r, restart = t->function(t) == HRTIMER_RESTART);
    if (restart) t->active = 1;
  }
  return r->fired;
}

static long blkmc_dispatch(struct blkmc_region *r) {
  struct request *rq = NULL;
  BLKMC_CHECKED(r, rq = blkmc_elv->ops.dispatch_request(blkmc_hctx(r)));
  /* clock=0: blk-mq found nothing to dispatch, and an armed timer fires
   * (it would, as time passes): the hand models' rule too. */
  if (!rq && !r->clock) blkmc_timers(r);
  if (!rq) return -1;
  const int id = blkmc_rq_id(r, rq);
  if (id < 0) blkmc_end(BLKMC_BADPTR, "dispatch_request returned a pointer that is no request");
  return id;
}

static int blkmc_prepared(const struct request *rq) {
#if BLKMC_KV_6_5
  return (rq->rq_flags & RQF_USE_SCHED) != 0;
#else
  return (rq->rq_flags & RQF_ELVPRIV) != 0;
#endif
}

static void blkmc_finish(struct blkmc_region *r, int i) {
  struct request *rq = blkmc_slot(r, i);
  if (blkmc_slot_free(rq)) return; /* a flush blkmc put on hctx->dispatch: no scheduler saw it */
  if (blkmc_prepared(rq)) {
    if (blkmc_elv->ops.finish_request) BLKMC_CHECKED(r, blkmc_elv->ops.finish_request(rq));
#if BLKMC_KV_6_5
    rq->rq_flags &= ~RQF_USE_SCHED;
#else
    rq->rq_flags &= ~RQF_ELVPRIV;
#endif
  }
  blkmc_poison(r, rq);
}

static void blkmc_requeue(struct blkmc_region *r, int i) {
  struct request *rq = blkmc_slot(r, i);
  if (blkmc_slot_free(rq)) blkmc_alloc_rq(r, i); /* a bypass request, requeued through the scheduler */
  rq->rq_flags &= ~RQF_TIMED_OUT;
  if (blkmc_prepared(rq) && blkmc_elv->ops.requeue_request) BLKMC_CHECKED(r, blkmc_elv->ops.requeue_request(rq));
  INIT_LIST_HEAD(&rq->queuelist);
  blkmc_insert_rq(r, i, 1);
}

static long blkmc_has_work(struct blkmc_region *r) {
  long w = 1;
  if (blkmc_elv->ops.has_work) BLKMC_CHECKED(r, w = blkmc_elv->ops.has_work(blkmc_hctx(r)));
  return w;
}

static long blkmc_canon(struct blkmc_region *r) {
  /* q->last_merge only serves merge lookups, which blkmc does not drive:
   * the file only ever writes it, compares it and clears it. */
  blkmc_q(r)->last_merge = NULL;
  for (int i = 0; i < r->nroots && r->canon_trees; ++i)
    if ((r->roots_dirty >> i) & 1)
      if (blkmc_rb_canon((struct rb_root *)((char *)r + r->roots[i])) < 0)
        blkmc_harness_error("an rb-tree of more than 1024 nodes");
  r->roots_dirty = 0;
#ifdef BLKMC_WALK_DEADLINE
  blkmc_dd_canon(r);
#endif
  return 0;
}

static void blkmc_books(struct blkmc_region *r) {
  r->books_valid = 0;
#ifdef BLKMC_WALK_DEADLINE
  blkmc_dd_books(r);
  r->books_valid = 1;
#endif
#ifdef BLKMC_WALK_BFQ
  blkmc_bfq_books(r);
  r->books_valid = 1;
#endif
}

static long blkmc_view(struct blkmc_region *r) {
  memset(&r->view, 0, sizeof r->view);
  memset(&r->bfq, 0, sizeof r->bfq);
#ifdef BLKMC_WALK_DEADLINE
  blkmc_dd_view(r);
  r->view.valid = 1;
#endif
#ifdef BLKMC_WALK_BFQ
  blkmc_bfq_view(r);
  r->bfq.valid = 1;
#endif
  return r->view.valid || r->bfq.valid;
}

/* The rb-tree against a sorted array: random inserts (equal keys too) and
 * erases, every invariant after every change, and the canonical shape. */
struct blkmc_tnode {
  struct rb_node rb;
  int key, in;
};
static long blkmc_selftest(void) {
  enum { N = 96 };
  struct blkmc_tnode v[N];
  struct rb_root root = RB_ROOT;
  unsigned long seed = 12345;
  for (int i = 0; i < N; ++i) v[i].in = 0;
  for (int step = 0; step < 20000; ++step) {
    seed = seed * 6364136223846793005UL + 1442695040888963407UL;
    const int i = (int)((seed >> 33) % N);
    if (!v[i].in) {
      v[i].key = (int)((seed >> 20) % 24);
      struct rb_node **p = &root.rb_node, *parent = NULL;
      while (*p) {
        parent = *p;
        p = v[i].key < rb_entry(parent, struct blkmc_tnode, rb)->key ? &(*p)->rb_left : &(*p)->rb_right;
      }
      rb_link_node(&v[i].rb, parent, p);
      rb_insert_color(&v[i].rb, &root);
      v[i].in = 1;
    } else {
      rb_erase(&v[i].rb, &root);
      v[i].in = 0;
    }
    if (step % 7 == 0 && blkmc_rb_canon(&root) < 0) return step + 1;
    int count = 0, last = -1;
    for (int k = 0; k < N; ++k) count += v[k].in;
    if (blkmc_rb_valid(&root) != count) return step + 1;
    for (struct rb_node *x = rb_first(&root); x; x = rb_next(x)) {
      const int key = rb_entry(x, struct blkmc_tnode, rb)->key;
      if (key < last) return step + 1;
      last = key;
    }
  }
  return 0;
}

BLKMC_EXPORT int blkmc_k_call(struct blkmc_region *r, int op, int a, int b, unsigned long now,
                              int flags, long *result) {
  sigjmp_buf jb;
  long res = 0;
  blkmc_cur = r;
  blkmc_check = NULL;
  blkmc_call_frame = __builtin_frame_address(0);
  blkmc_jiffies = now;
  r->status = BLKMC_OK;
  r->warned = 0;
  if (op != BLKMC_OP_STORE) r->what[0] = 0;
  blkmc_jmp = &jb;
  if (sigsetjmp(jb, 0)) {
    blkmc_check = NULL;
    blkmc_in_call = 0;
    *result = -1;
    return r->status;
  }
  blkmc_in_call = 1;
  r->fired = 0;
  /* current: the submitter for a request's allocation and insert (and a
   * requeue, which may allocate a flush blk-mq had kept from the
   * scheduler: blk_mq_rq_ctx_init ran in the submitter's context), else
   * blkmc's kernel thread (blk-mq's dispatch, completion). */
  blkmc_current = NULL;
  if (r->tasks_off) {
    const int submit =
        (op == BLKMC_OP_ALLOC || op == BLKMC_OP_INSERT || op == BLKMC_OP_REQUEUE) && a >= 0 && a < r->nrqs;
    blkmc_current = blkmc_task(r, submit && r->rqs[a].proc < r->nprocs ? r->rqs[a].proc : r->nprocs);
  }
  switch (op) {
    case BLKMC_OP_INIT: res = blkmc_init(r); break;
    case BLKMC_OP_STORE: res = blkmc_store(r, a); break;
    case BLKMC_OP_SHOW: res = blkmc_show(r, a); break;
    case BLKMC_OP_ATTRS: res = blkmc_attr_name(r, a); break;
    case BLKMC_OP_ALLOC: res = blkmc_alloc_rq(r, a); break;
    case BLKMC_OP_INSERT: blkmc_insert_rq(r, a, b); break;
    case BLKMC_OP_DISPATCH: res = blkmc_dispatch(r); break;
    case BLKMC_OP_HAS_WORK: res = blkmc_has_work(r); break;
    case BLKMC_OP_FINISH: blkmc_finish(r, a); break;
    case BLKMC_OP_REQUEUE: blkmc_requeue(r, a); break;
    case BLKMC_OP_CANON: res = blkmc_canon(r); break;
    case BLKMC_OP_VIEW: res = blkmc_view(r); break;
    case BLKMC_OP_SELFTEST: res = blkmc_selftest(); break;
    case BLKMC_OP_MODULE_INIT: res = blkmc_init_module(); break;
    case BLKMC_OP_TIMERS: res = blkmc_timers(r); break;
    default: blkmc_harness_error("unknown harness call %d", op);
  }
  if (flags & BLKMC_AFTER_CANON) blkmc_canon(r);
  if (flags & BLKMC_AFTER_HAS_WORK)
    r->has_work = (int32_t)blkmc_has_work(r);
  if (flags & BLKMC_AFTER_BOOKS) blkmc_books(r);
  blkmc_in_call = 0;
  *result = res;
  if (r->warned) r->status = BLKMC_WARN;
  return r->status;
}
