/*
 * blkmc_region.h: what blkmc's harness (harness.c, compiled with the
 * user's scheduler file) and blkmc itself (model/sched/kernel/) share. The
 * scheduler's memory is one region that blkmc maps: this header, the arena
 * that kzalloc takes from, then one fixed slot per workload request. A
 * state of the model is the arena's objects and the first
 * BLKMC_RQ_STATE_BYTES of every slot (what a scheduler writes), coded by
 * blkmc (kernel_codec.hpp); everything else is constant once init is done.
 * Written for blkmc; C and C++ both include it.
 */
#ifndef BLKMC_REGION_H
#define BLKMC_REGION_H

#include <stdint.h>

#define BLKMC_REGION_MAGIC 0x626c6b6d63726731ULL /* "blkmcrg1" */
#define BLKMC_ABI 3
#define BLKMC_MAX_RQS 64
#define BLKMC_MAX_OBJS 192
#define BLKMC_MAX_PROCS 16
#define BLKMC_MAX_POOLS 4
#define BLKMC_MAX_POOL_OBJS 40
#define BLKMC_MAX_TIMERS 4
#define BLKMC_MAX_ROOTS 64
#define BLKMC_REDZONE 16
/* The arena's most bytes, and its 16-byte granules (gran[] below). */
#define BLKMC_ARENA_MAX (64 * 1024)
#define BLKMC_GRANULE 16
#define BLKMC_REDZONE_BYTE 0xa5
#define BLKMC_FREE_BYTE 0x6b /* a freed request slot, as the kernel's POISON_FREE */
/* Bytes of a request slot that a scheduler may write (struct request's head). */
#define BLKMC_RQ_STATE_BYTES 80
/* A request slot: two pages, the state words at the end of the first, the
 * rest of struct request on the second, which is read-only once init is
 * done (a write to it faults: blkmc keeps those fields constant). */
#define BLKMC_PAGE 4096
#define BLKMC_SLOT_STRIDE (2 * BLKMC_PAGE)
/* The clocks at the start of every call: jiffies and ktime (ns) read these
 * plus the ticks blkmc's clock advanced within the call. Large, odd values,
 * so a word that holds a time is told from any other (kernel_codec.hpp). */
#define BLKMC_J0 0x5ec0000000000000ULL
#define BLKMC_K0 0x3a70000000000000ULL

/* A workload request, as blk-mq allocates it. */
enum blkmc_rq_kind { BLKMC_RQ_NORMAL = 0, BLKMC_RQ_HEAD = 1, BLKMC_RQ_BYPASS = 2 };
struct blkmc_rq_spec {
  uint64_t sector;
  uint32_t sectors;
  uint16_t ioprio;
  uint8_t write, sync, kind;
  uint8_t proc; /* the workload process that submits it */
  uint8_t pad[2];
};
/* A workload process: `current` for its requests' allocation and insert. */
struct blkmc_proc_spec {
  uint16_t ioprio; /* its io_context's (IOPRIO_PRIO_VALUE) */
  int8_t nice;
  uint8_t pad[5];
};
/* A slab cache's pool in a region (objects of one size, laid out by init):
 * which are in use is a word of the arena (so it is state). */
struct blkmc_pool {
  uint64_t map_off;   /* the in-use bitmap word */
  uint64_t first_off; /* object i at first_off + i * stride */
  uint32_t n, stride;
};

/* The mq-deadline walker's view (walk_deadline.h): ids are request slots,
 * -2 a pointer that is no request. */
struct blkmc_idlist {
  int32_t n;
  int8_t id[BLKMC_MAX_RQS];
};
struct blkmc_dd_prio {
  struct blkmc_idlist fifo[2], sort[2], dispatch;
  int64_t latest_pos[2]; /* -1: the file keeps next_rq */
  int32_t next_rq[2];    /* request id, -1 NULL; -3: the file keeps latest_pos */
  uint32_t inserted, merged, dispatched, completed;
};
struct blkmc_dd_view {
  int32_t valid;
  int32_t last_dir, batching, starved;
  int32_t prio_dispatch; /* 1: a dispatch list per priority (6.1), else one in deadline_data */
  struct blkmc_idlist dispatch;
  struct blkmc_dd_prio prio[3];
  int32_t fifo_batch, writes_starved, fifo_expire[2], prio_aging_expire;
};

/* The BFQ walker's view (walk_bfq.h): its queues (the bfq_queue pool's
 * objects in use), each with its process and its requests in fifo order. */
struct blkmc_bfq_queue {
  int16_t proc;  /* the workload process that made it (bfqq->pid), -1 none */
  uint8_t sync, busy;
  uint8_t short_ttime, io_bound, wait_request, pad8; /* bfqq flags */
  int32_t dispatched, waker;   /* bfqq->dispatched; waker_bfqq's index in q[], -1 none */
  int32_t weight, wr_coeff, ref, pad;
  int64_t budget, service;          /* entity.budget, entity.service */
  uint64_t start, finish, vtime;    /* B-WF2Q+: entity.start, .finish, its tree's vtime */
  struct blkmc_idlist fifo;
};
struct blkmc_bfq_view {
  int32_t valid;
  int32_t queued;     /* bfqd->queued */
  int32_t in_service; /* index into q[], -1 none */
  int32_t timer;      /* the idle-slice timer is armed */
  int32_t nq;
  struct blkmc_idlist dispatch; /* bfqd->dispatch */
  struct blkmc_bfq_queue q[BLKMC_MAX_POOL_OBJS];
};

/* What the harness keeps about the scheduler's memory (not state). */
struct blkmc_obj {
  uint64_t off, size; /* from the region base; size rounded up to 16 */
  uint64_t req;       /* the size asked for: the bytes past it are padding, then the redzone */
  uint64_t pc;        /* the code that allocated it (its return address) */
  int32_t pool;       /* a slab cache's pool object: the cache (then pool_index), else -1 */
  int32_t pool_index;
};

/* A memory error the instrumentation found (blkmc_tsan.c): status
 * BLKMC_MEMORY, the call ended before the access. */
enum blkmc_mem_kind {
  BLKMC_MEM_FREE_RQ = 1,  /* a request slot whose request is not allocated (never, or completed) */
  BLKMC_MEM_FREE_OBJ = 2, /* a free slab object, or a kfree'd one */
  BLKMC_MEM_OOB_RQ = 3,   /* outside struct request, in its slot */
  BLKMC_MEM_OOB_OBJ = 4,  /* past an object's size (its padding or redzone) */
  BLKMC_MEM_WILD = 5,     /* the arena where no object lies */
};
#define BLKMC_MEM_PCS 8
struct blkmc_memerr {
  int32_t kind, write;
  uint32_t size;  /* bytes accessed */
  int32_t slot;   /* request slot, -1 */
  int32_t obj;    /* objs[] index, -1 */
  int32_t pool;   /* the object's slab cache, -1 */
  int64_t at;     /* the access's offset in the request or object (negative: before it) */
  int32_t npc, pad;
  uint64_t pc[BLKMC_MEM_PCS]; /* the access, then its callers up to blkmc_k_call */
};
struct blkmc_region {
  uint64_t magic;
  uint64_t size;
  uint32_t abi;
  int32_t nrqs;
  uint64_t arena_off, arena_cap, arena_used;
  uint64_t slots_off, slot_stride, slot_lead; /* request i at slots_off + i * stride + lead */
  int32_t frozen;  /* init done: allocations end here */
  int32_t nobjs;
  struct blkmc_obj objs[BLKMC_MAX_OBJS];
  int32_t nroots;  /* rb-tree roots seen by rb_insert_color, region offsets */
  int32_t pad;
  uint64_t roots[BLKMC_MAX_ROOTS];
  uint64_t roots_dirty; /* bit i: roots[i] changed since the last canonical form */
  struct blkmc_rq_spec rqs[BLKMC_MAX_RQS];
  /* The queue blk-mq set up: region offsets. */
  uint64_t q_off, hctx_off, eq_off;
  int32_t depth;          /* driver tags (hw queue depth) */
  int32_t nr_requests;    /* scheduler tags */
  int32_t rotational;     /* else QUEUE_FLAG_NONROT */
  int32_t clock;          /* 1: time passes in ticks; 0: it does not (timers fire when blk-mq finds no work) */
  int32_t canon_trees;    /* BLKMC_OP_CANON rebuilds changed rb-trees in one shape (their users read order only) */
  int32_t nprocs;
  struct blkmc_proc_spec procs[BLKMC_MAX_PROCS];
  uint64_t tasks_off;     /* task_struct[nprocs + 1]: the processes, then blkmc's kernel thread */
  int32_t pool_objs;      /* objects in each slab cache's pool */
  int32_t npools;
  struct blkmc_pool pools[BLKMC_MAX_POOLS];
  int32_t ntimers;        /* hrtimers that init set up (hrtimer_init), region offsets */
  int32_t fired;          /* timers the last call fired */
  uint64_t timers[BLKMC_MAX_TIMERS];
  /* How many 8-byte words of a request's head are state (the scheduler's),
   * the others constant; a freed request's state words are poisoned. */
  uint32_t rq_state_words;
  uint32_t rq_size;   /* sizeof(struct request) */
  uint64_t freed_off; /* arena: bit i set once objs[i] is kfree'd (state) */
  struct blkmc_memerr mem;
  /* The object each granule of the arena belongs to, its padding and
   * redzone included: objs[] index + 1, 0 for none (blkmc_tsan.c's lookup;
   * filled by the allocator, constant after init). */
  uint8_t gran[BLKMC_ARENA_MAX / BLKMC_GRANULE];
  /* The last call's end: status and a line of text. */
  int32_t status;
  int32_t warned;
  char what[240];
  /* What the flags of the call asked for, after it (BLKMC_AFTER_*). */
  int32_t has_work;
  int32_t books_valid;
  int32_t books[3]; /* the file's own count of requests it holds, per priority */
  int32_t pad3;
  /* BLKMC_OP_VIEW's answer (mq-deadline's, or BFQ's). */
  struct blkmc_dd_view view;
  struct blkmc_bfq_view bfq;
};

/* Calls into the harness: blkmc_k_call(region, op, a, b, now, flags, &result). */
enum blkmc_op {
  BLKMC_OP_INIT = 1,      /* module_init, the queue, .init_sched, .init_hctx */
  BLKMC_OP_STORE = 2,     /* a = attribute index, the value text in region->what */
  BLKMC_OP_SHOW = 3,      /* a = attribute index: the text into region->what */
  BLKMC_OP_ALLOC = 4,     /* request a: blk_mq_rq_ctx_init (.limit_depth, .prepare_request) */
  BLKMC_OP_INSERT = 5,    /* request a, b = at head: .insert_requests */
  BLKMC_OP_DISPATCH = 6,  /* .dispatch_request: result = request id, -1 NULL */
  BLKMC_OP_HAS_WORK = 7,  /* .has_work */
  BLKMC_OP_FINISH = 8,    /* request a completes: .finish_request, then the slot is freed */
  BLKMC_OP_REQUEUE = 9,   /* request a: .requeue_request, then reinserted at head */
  BLKMC_OP_CANON = 10,    /* the canonical form: rb-trees rebuilt, the file's counters rebased */
  BLKMC_OP_VIEW = 11,     /* the file's walker: the view into region->view */
  BLKMC_OP_ATTRS = 12,    /* attribute a's name into region->what (result -1 past the last) */
  BLKMC_OP_SELFTEST = 13, /* the rb-tree against a sorted array (tests) */
  BLKMC_OP_MODULE_INIT = 14, /* the file's module_init (once per loaded object) */
  BLKMC_OP_TIMERS = 15,   /* fire every armed hrtimer whose expiry has come (clock=0: every armed one) */
};
/* What a call does after its op, when the op ended well (flags). */
enum blkmc_after {
  BLKMC_AFTER_CANON = 1,    /* BLKMC_OP_CANON */
  BLKMC_AFTER_HAS_WORK = 2, /* .has_work into region->has_work */
  BLKMC_AFTER_BOOKS = 4,    /* the walker's books into region->books */
};
/* Ends of a call (region->status, and the return value). */
enum blkmc_status {
  BLKMC_OK = 0,
  BLKMC_BUG = 1,      /* BUG() or BUG_ON() */
  BLKMC_WARN = 2,     /* WARN*(): the call ran to its end */
  BLKMC_FAULT = 3,    /* a fault (segfault, bus error, arithmetic) */
  BLKMC_TIMEOUT = 4,  /* the call did not return */
  BLKMC_BADPTR = 5,   /* a request pointer that is no request of blkmc's */
  BLKMC_HARNESS = 6,  /* something blkmc does not model (a merge, a late allocation) */
  BLKMC_MEMORY = 7,   /* an access to memory that is not allocated (region->mem) */
};

#endif /* BLKMC_REGION_H */
