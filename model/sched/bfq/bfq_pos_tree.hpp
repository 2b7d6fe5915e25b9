// model/sched/bfq/bfq_pos_tree: bfqg->rq_pos_tree, the red-black tree of
// queues keyed by the sector of their next request, in which BFQ looks for
// a close cooperator (bfqq_find_close). Which of two close neighbours it
// returns depends on the tree's shape, so the shape is kept: one byte per
// queue holds its parent, which side of it, and its colour. Insertion and
// erasure rebalance as lib/rbtree.c does (__rb_insert,
// __rb_erase_augmented, ____rb_erase_color). The keys are read only to
// search and insert, so a queue whose next request changed leaves from the
// place it had, as in the kernel.
#pragma once

#include <cstdint>

#include "model/sched/workload.hpp"

namespace blkmc::sched {

class PosTree {
 public:
  static constexpr int kMax = kMaxProcs;
  static constexpr int kOn = 0x80, kRed = 0x40, kRight = 0x20, kParentMask = 0x1f;

  // code[q]: 0 off the tree, else kOn | kRed (red) | kRight (its parent's
  // right child) | parent + 1 (0: the root); key[q]: the sector of queue q's
  // next request (read to search and insert).
  PosTree(const std::uint8_t* code, const int* key, int n);
  void encode(std::uint8_t* code) const;

  bool contains(int q) const { return on_[q]; }
  int key(int q) const { return key_[q]; }
  // bfq_rq_pos_tree_lookup: the queue whose key is `sector`, or -1; *parent:
  // the last node visited (-1 on an empty tree).
  int lookup(int sector, int* parent) const;
  void insert(int q);  // q's key must not be on the tree
  void erase(int q);
  int next(int q) const;  // rb_next / rb_prev: -1 at the end
  int prev(int q) const;
  // Red-black invariants and the keys' order; for the tests.
  bool valid() const;

 private:
  void link_child(int parent, int old, int now);  // __rb_change_child
  void rotate_set_parents(int old, int now, bool old_red);  // __rb_rotate_set_parents
  void erase_color(int parent);
  int step(int q, int dir) const;  // rb_next (dir 1) / rb_prev (dir 0)
  int black_height(int n, bool* ok) const;

  // kid_[q][0] is q's left child, kid_[q][1] its right: lib/rbtree.c writes
  // each rebalancing case twice, mirrored; here once, for a side d.
  int n_, root_ = -1;
  int key_[kMax] = {}, kid_[kMax][2] = {}, parent_[kMax] = {};
  bool red_[kMax] = {}, on_[kMax] = {};
};

}  // namespace blkmc::sched
