/*
 * walk_bfq.h: blkmc's walker of BFQ's private state, compiled after the
 * file (harness.c includes it), so it names struct bfq_data and struct
 * bfq_queue as bfq-iosched.h declares them (6.1-6.12). Written for blkmc.
 *
 *   view   BFQ's queues (the bfq_queue pool's objects in use): the process
 *          that made each (bfqq->pid), sync, busy, weight, weight raising,
 *          references, budget and service, B-WF2Q+ start, finish and its
 *          tree's virtual time, and its requests in fifo order; the in-service queue,
 *          the idle-slice timer, bfqd->queued and bfqd->dispatch: a
 *          trace's state and its story
 *   books  bfqd->queued (the requests in BFQ's queues) and the length of
 *          bfqd->dispatch (requests inserted at head): the conservation
 *          property holds them against the requests blk-mq gave BFQ
 */

static struct bfq_data *blkmc_bfqd(struct blkmc_region *r) {
  return (struct bfq_data *)blkmc_q(r)->elevator->elevator_data;
}

static int blkmc_list_len(struct list_head *head) {
  int n = 0;
  for (struct list_head *p = head->next; p != head && n <= BLKMC_MAX_RQS; p = p->next) ++n;
  return n;
}

/* The pool of bfq_queue objects (bfq_slab_setup's cache), -1 if none. */
static int blkmc_bfq_pool(struct blkmc_region *r) {
  for (int c = 0; c < r->npools; ++c)
    if (!strcmp(blkmc_cache(c)->name, "bfq_queue")) return c;
  return -1;
}

static void blkmc_bfq_view(struct blkmc_region *r) {
  struct bfq_data *bfqd = blkmc_bfqd(r);
  struct blkmc_bfq_view *v = &r->bfq;
  v->queued = bfqd->queued;
  v->timer = bfqd->idle_slice_timer.active != 0;
  v->in_service = -1;
  blkmc_walk_list(r, &v->dispatch, &bfqd->dispatch);
  const int c = blkmc_bfq_pool(r);
  if (c < 0) return;
  const struct blkmc_pool *p = &r->pools[c];
  const uint64_t map = *(uint64_t *)((char *)r + p->map_off);
  struct bfq_queue *seen[BLKMC_MAX_POOL_OBJS];
  for (uint32_t i = 0; i < p->n && v->nq < BLKMC_MAX_POOL_OBJS; ++i) {
    if (!((map >> i) & 1)) continue;
    struct bfq_queue *q = (struct bfq_queue *)((char *)r + p->first_off + (uint64_t)i * p->stride);
    struct blkmc_bfq_queue *o = &v->q[v->nq];
    o->proc = (int16_t)(q->pid >= 1000 && q->pid < 1000 + r->nprocs ? q->pid - 1000 : -1);
    o->sync = bfq_bfqq_sync(q);
    o->busy = bfq_bfqq_busy(q);
    o->weight = (int32_t)q->entity.weight;
    o->wr_coeff = (int32_t)q->wr_coeff;
    o->ref = q->ref;
    o->short_ttime = bfq_bfqq_has_short_ttime(q);
    o->io_bound = bfq_bfqq_IO_bound(q);
    o->wait_request = bfq_bfqq_wait_request(q);
    o->dispatched = q->dispatched;
    o->waker = -1;
    o->budget = q->entity.budget;
    o->service = q->entity.service;
    o->start = q->entity.start;
    o->finish = q->entity.finish;
    o->vtime = bfq_entity_service_tree(&q->entity)->vtime;
    blkmc_walk_list(r, &o->fifo, &q->fifo);
    if (q == bfqd->in_service_queue) v->in_service = v->nq;
    seen[v->nq++] = q;
  }
  /* each queue's waker, as an index among the queues seen */
  for (int i = 0; i < v->nq; ++i)
    for (int k = 0; k < v->nq; ++k)
      if (seen[i]->waker_bfqq == seen[k]) v->q[i].waker = k;
}

static void blkmc_bfq_books(struct blkmc_region *r) {
  struct bfq_data *bfqd = blkmc_bfqd(r);
  r->books[0] = bfqd->queued;
  r->books[1] = blkmc_list_len(&bfqd->dispatch);
  r->books[2] = 0;
}
