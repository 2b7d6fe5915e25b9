// model/sched/cfq/cfq_decide: CFQ's decisions per version, written once over
// their value types (docs/architecture.md, "One source, two semantics").
//
// B is bool (the scheduler) or, later, z3::expr (issue 6); I is int or
// z3::expr. Only &&, ||, !, comparisons, + and - on the inputs, and ite()
// for selection: no `if` or ?: on a B, no short-circuit that needs bool.
// Formulas from docs/models/bfq-cfq-facts.md part B (cfq-iosched.c of 2.6.33 and
// 3.1, seeds 000/001/004), in the model's scaled units (ticks, sectors
// 0..255, a seek history of `seek_window` bits).
#pragma once

#include "model/concrete_values.hpp"

namespace blkmc::sched::cfq {

// --- seek detection ---

// 2.6.33 cfq_update_io_seektime + CFQQ_SEEKY: the mean seek distance is
// above the threshold (CFQQ_SEEK_THR, 8192 sectors in the kernel), used by
// cfq_update_idle_window only once the seek samples are valid.
template <class B, class I>
B seeky_mean_v2633(const B& samples_valid, const I& seek_mean, const I& seek_mean_thr) {
  return samples_valid && seek_mean > seek_mean_thr;
}

// 2.6.33 cfq_update_io_seektime, one request at distance sdist from the
// last: the distance is clamped against the current mean (harder once the
// samples are many), then both EWMAs move 1/8 of the way. `samples` never
// depends on the distances, so it stays a plain int; `total` and the mean
// are the queue's state.
template <class I>
I seek_mean_v2633(int samples, const I& total) {
  return samples ? (total + samples / 2) / samples : ival(total, 0);
}
template <class I>
I seek_sdist_clamped_v2633(int samples, const I& mean, const I& sdist, int mean_thr) {
  const I clamp = samples <= 60 ? 4 * mean + 256 * mean_thr : 4 * mean + 16 * mean_thr;
  return ite(clamp < sdist, clamp, sdist);
}
inline int seek_samples_next_v2633(int samples) { return (7 * samples + 256) / 8; }
template <class I>
I seek_total_next_v2633(const I& total, const I& sdist) {
  return (7 * total + 256 * sdist) / 8;
}

// 3.1 (seed 001, "rework seeky detection" + "rethink seeky detection for
// SSDs"): the bit shifted into seek_history for one request. Non-rotational:
// the request is small (< CFQQ_SECT_THR_NONROT, 64 sectors); rotational: the
// distance from the last request is above CFQQ_SEEK_THR (800 sectors).
template <class B, class I>
B seek_bit_v31(const B& nonrot, const I& size, const I& sdist, const I& size_thr,
               const I& dist_thr) {
  return (nonrot && size < size_thr) || (!nonrot && sdist > dist_thr);
}

// 3.1 CFQQ_SEEKY: more than window/8 of the last `window` requests were
// seeky (hweight32(seek_history) > 32/8 in the kernel).
template <class B, class I>
B seeky_hist_v31(const I& popcount, const I& limit) {
  return popcount > limit;
}

// Seed 000 v2 CFQQ_STRICT_SEEKY: every bit of the history is set.
template <class B, class I>
B strict_seeky(const I& popcount, const I& window) {
  return popcount == window;
}

// --- the deep flag and the idle window (cfq_update_idle_window) ---

// Step 1: deep is marked when the queue holds >= 4 requests; seed 000 v2
// (and, as reconstructed, v1) only while the device is not judged fast.
template <class B, class I>
B marks_deep(const B& has_fast_rule, const I& queued, const B& device_fast) {
  return queued >= 4 && !(has_fast_rule && device_fast);
}

// Step 2: the new idle_window. Rules, first match wins:
//   no process left, or slice_idle == 0, or (not deep and seeky) -> 0
//   think-time samples valid -> ttime_mean <= slice_idle
//   otherwise unchanged.
// `seeky` is the version's seeky test already combined with its validity
// (2.6.33: seek samples valid; 3.1: none). The 3.1 REQ_NOIDLE rule never
// applies in the model (no request carries REQ_NOIDLE).
template <class B, class I>
B idle_window_next(const B& old_idle, const B& has_task, const I& slice_idle, const B& deep,
                   const B& seeky, const B& ttime_valid, const I& ttime_mean) {
  const B off = !has_task || slice_idle == 0 || (!deep && seeky);
  return !off && ite(ttime_valid, ttime_mean <= slice_idle, old_idle);
}

// --- idling ---

// cfq_should_idle(q). v31: the 3.1 form (slice_idle == 0 test, think time of
// the service tree not big); otherwise the 2.6.33 form. hw_tag_or_unknown:
// hw_tag != 0 (-1 still counts as queueing).
template <class B, class I>
B should_idle(const B& v31, const I& slice_idle, const B& idle_class, const B& idle_window,
              const B& nonrot, const B& hw_tag_or_unknown, const I& tree_count, const B& sync,
              const B& tree_ttime_big) {
  const B per_queue = idle_window && !(nonrot && hw_tag_or_unknown);
  const B last_on_tree = tree_count == 1 && sync && !(v31 && tree_ttime_big);
  return !(v31 && slice_idle == 0) && !idle_class && (per_queue || last_on_tree);
}

// cfq_select_queue step 8 (3.1 only; deleted by seed 000 v2): a seeky queue
// with an idle window and more than half of its slice left is un-deepened.
template <class B, class I>
B undeepen_v31(const B& seeky, const B& idle_window, const B& slice_new, const I& slice_left,
               const I& slice_elapsed) {
  return seeky && idle_window && (slice_new || slice_left > slice_elapsed);
}

// --- device detection ---

// cfq_update_hw_tag: the sample counts only with enough requests around and
// not while CFQ itself keeps the depth low; the decision is est_depth >=
// CFQ_HW_QUEUE_MIN (5), taken at the sample after hw_tag_samples (50).
template <class B, class I>
B hw_tag_sample(const I& rq_queued, const I& rq_in_driver, const B& active_idle_window,
                const I& active_load, const I& hw_min) {
  return (rq_queued > hw_min || rq_in_driver > hw_min) &&
         !(active_idle_window && active_load < hw_min && rq_in_driver < hw_min);
}
template <class B, class I>
B hw_tag_value(const I& est_depth, const I& hw_min) {
  return est_depth >= hw_min;
}

// Seed 000 v2 cfq_fast_device_detect_end: a batch of `count` strictly seeky
// requests drained in `elapsed` jiffies is fast iff elapsed / count == 0
// (unsigned), i.e. elapsed < count. The v1 reconstruction measures a single
// request: count is 1.
template <class B, class I>
B fast_sample(const I& elapsed, const I& count) {
  return elapsed < count;
}

// CFQD_FAST: sample_valid(fast_device_samples), the samples never expire.
template <class B, class I>
B device_fast(const I& samples, const I& valid_at) {
  return samples >= valid_at;
}

}  // namespace blkmc::sched::cfq
