// device/analysis: from the kernel's events to what the model is compared
// with: the join of tracepoint events with the plan's requests, the issue
// (dispatch) order of a run, the modal order of N runs and the spread
// around it (Kendall distance), and the tracked request's wait.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "device/plan.hpp"
#include "device/tracefs.hpp"

namespace blkmc::device {

struct Event {
  EvKind kind = EvKind::Insert;  // Insert, Issue, Complete (Requeue kept, Merge dropped)
  int rq = -1;                   // plan request id
  std::int64_t ts_us = 0;
  friend bool operator==(const Event&, const Event&) = default;
};

struct Joined {
  std::vector<Event> events;  // in kernel order
  int unmatched = 0;          // events of requests the plan does not have (or out of turn)
  int merges = 0;             // block_rq_merge events (nomerges=2 should leave none)
};

// Matches each event with a plan request by start sector and direction: an
// insert takes the first request in plan order not yet inserted; an issue
// or completion the one inserted (issued) and not yet issued (completed).
Joined join_events(const Plan& plan, const std::vector<RawEvent>& raw);

// Submissions (CLOCK_MONOTONIC µs per request id, -1: not submitted) joined
// with the insert events (trace_clock mono, the same clock): requests
// submitted without an insert event, inserts without a submission, and the
// largest submission-to-insert delay.
struct SubmitJoin {
  int missing = 0, unsubmitted = 0;
  std::int64_t max_delay_us = 0;
};
SubmitJoin join_submissions(const std::vector<std::int64_t>& submit_us, const std::vector<Event>& ev);

// Request ids in the order of their block_rq_issue events.
std::vector<int> issue_order(const std::vector<Event>& ev);
std::vector<int> insert_order(const std::vector<Event>& ev);

// Number of pairs ordered differently by a and b; -1 when they do not hold
// the same requests.
int kendall_distance(const std::vector<int>& a, const std::vector<int>& b);

struct Modal {
  std::vector<int> order;  // the most frequent order (first seen among equals)
  int count = 0, runs = 0;
  std::vector<int> distance;  // per run: Kendall distance to the mode (-1: other requests)
  int max_distance() const;
};
Modal modal_order(const std::vector<std::vector<int>>& orders);

// Position of request r in order (number of requests before it); -1 if absent.
int position(const std::vector<int>& order, int r);
// Requests of the gated processes dispatched before r (the tracked wait).
int gated_before(const Plan& plan, const std::vector<int>& order, int r);

// "reader.3" names for an order, shortened: runs of one process with
// consecutive indices become "reader.0-15".
std::string order_text(const Plan& plan, const std::vector<int>& order, std::size_t max_items = 0);

}  // namespace blkmc::device
