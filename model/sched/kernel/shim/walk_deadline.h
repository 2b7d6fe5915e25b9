/*
 * walk_deadline.h: blkmc's walker of mq-deadline's private state, compiled
 * after the file (harness.c includes it), so it names struct deadline_data
 * and struct dd_per_prio as the file declares them. blkmc reads the layout
 * from the file's text: BLKMC_DD_LATEST_POS (latest_pos[] rather than
 * next_rq[]) and BLKMC_DD_PRIO_DISPATCH (a dispatch list per priority, as
 * in 6.1, rather than one in deadline_data). Written for blkmc.
 *
 *   view   the lists as request ids, the batch and direction state, the
 *          counters and tunables: a trace's state, the books of the
 *          conservation property, the conformance checks' story
 *   canon  the counters rebased: every use of io_stats_per_prio is a
 *          difference (dd_queued = inserted - completed; owned by the
 *          driver = dispatched + merged - completed), so the completed
 *          count is subtracted from inserted, dispatched and itself
 */

static struct deadline_data *blkmc_dd(struct blkmc_region *r) {
  return (struct deadline_data *)blkmc_q(r)->elevator->elevator_data;
}

static void blkmc_dd_view(struct blkmc_region *r) {
  struct deadline_data *dd = blkmc_dd(r);
  struct blkmc_dd_view *v = &r->view;
  v->last_dir = (int32_t)dd->last_dir;
  v->batching = (int32_t)dd->batching;
  v->starved = (int32_t)dd->starved;
  v->fifo_batch = dd->fifo_batch;
  v->writes_starved = dd->writes_starved;
  v->fifo_expire[0] = dd->fifo_expire[DD_READ];
  v->fifo_expire[1] = dd->fifo_expire[DD_WRITE];
  v->prio_aging_expire = dd->prio_aging_expire;
#ifdef BLKMC_DD_PRIO_DISPATCH
  v->prio_dispatch = 1;
#else
  v->prio_dispatch = 0;
  blkmc_walk_list(r, &v->dispatch, &dd->dispatch);
#endif
  for (int p = 0; p < 3; ++p) {
    struct dd_per_prio *pp = &dd->per_prio[p];
    struct blkmc_dd_prio *o = &v->prio[p];
    for (int d = 0; d < 2; ++d) {
      blkmc_walk_list(r, &o->fifo[d], &pp->fifo_list[d]);
      blkmc_walk_tree(r, &o->sort[d], &pp->sort_list[d]);
#ifdef BLKMC_DD_LATEST_POS
      o->latest_pos[d] = (int64_t)pp->latest_pos[d];
      o->next_rq[d] = -3;
#else
      o->latest_pos[d] = -1;
      o->next_rq[d] = pp->next_rq[d] ? blkmc_rq_id(r, pp->next_rq[d]) : -1;
#endif
    }
#ifdef BLKMC_DD_PRIO_DISPATCH
    blkmc_walk_list(r, &o->dispatch, &pp->dispatch);
#endif
    o->inserted = pp->stats.inserted;
    o->merged = pp->stats.merged;
    o->dispatched = pp->stats.dispatched;
    o->completed = (uint32_t)atomic_read(&pp->stats.completed);
  }
}

/* dd_queued() per priority: what the file counts as inserted and not
 * completed (a u32 difference, read as signed). */
static void blkmc_dd_books(struct blkmc_region *r) {
  struct deadline_data *dd = blkmc_dd(r);
  for (int p = 0; p < 3; ++p) {
    const struct io_stats_per_prio *st = &dd->per_prio[p].stats;
    r->books[p] = (int32_t)(st->inserted - (uint32_t)atomic_read(&st->completed));
  }
}

static void blkmc_dd_canon(struct blkmc_region *r) {
  struct deadline_data *dd = blkmc_dd(r);
  for (int p = 0; p < 3; ++p) {
    struct io_stats_per_prio *st = &dd->per_prio[p].stats;
    const uint32_t c = (uint32_t)atomic_read(&st->completed);
    st->inserted -= c;
    st->dispatched -= c;
    atomic_set(&st->completed, 0);
  }
}
