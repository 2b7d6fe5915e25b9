// Unit tests for bfq's rq_pos_tree (model/sched/bfq/bfq_pos_tree): the
// shapes lib/rbtree.c gives on small sequences, and under random inserts
// and erases the red-black invariants, the order of a std::set and a
// stored code that rebuilds the same tree.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <set>
#include <vector>

#include "model/sched/bfq/bfq_pos_tree.hpp"

namespace bfq_pos_tree_test {

using blkmc::sched::PosTree;

struct Tree {
  std::uint8_t code[PosTree::kMax] = {};
  int key[PosTree::kMax] = {};
  int n = PosTree::kMax;
  PosTree load() const { return PosTree(code, key, n); }
};

TEST_CASE("pos tree: three ascending keys end balanced, the middle black at the root") {
  Tree t;
  for (int q = 0; q < 3; ++q) t.key[q] = 10 * (q + 1);
  for (int q = 0; q < 3; ++q) {
    PosTree p = t.load();
    p.insert(q);
    p.encode(t.code);
  }
  CHECK(t.code[1] == PosTree::kOn);                          // the root, black
  CHECK(t.code[0] == (PosTree::kOn | PosTree::kRed | 2));  // left child of queue 1
  CHECK(t.code[2] == (PosTree::kOn | PosTree::kRed | PosTree::kRight | 2));
  int parent = -1;
  const PosTree p = t.load();
  CHECK(p.lookup(20, &parent) == 1);
  // 15 lies between 10 and 20: the search ends at the deeper of the two.
  CHECK(p.lookup(15, &parent) == -1);
  CHECK(parent == 0);
}

TEST_CASE("pos tree: with two nodes the later one is the child a search ends at") {
  Tree t;
  t.key[0] = 0;
  t.key[1] = 2;
  for (int q : {1, 0}) {
    PosTree p = t.load();
    p.insert(q);
    p.encode(t.code);
  }
  int parent = -1;
  CHECK(t.load().lookup(1, &parent) == -1);
  CHECK(parent == 0);  // 0 was inserted last, below 2
  PosTree p = t.load();
  p.erase(1);  // the root goes; its child takes its place, black
  p.encode(t.code);
  CHECK(t.code[0] == PosTree::kOn);
  CHECK(t.code[1] == 0);
}

TEST_CASE("pos tree: random inserts and erases keep the invariants, the order and the code") {
  CHECK(rc::check("rbtree", [] {
    const auto ops = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 2 * PosTree::kMax));
    Tree t;
    std::set<int> keys;
    for (int q = 0; q < t.n; ++q) t.key[q] = -1;
    for (int op : ops) {
      const int q = op % PosTree::kMax;
      PosTree p = t.load();
      if (p.contains(q)) {
        p.erase(q);
        keys.erase(t.key[q]);
      } else {
        const int k = *rc::gen::inRange(0, 40);
        if (keys.count(k)) continue;  // bfq_pos_tree_add_move leaves a duplicate key off
        t.key[q] = k;
        PosTree fresh = t.load();
        fresh.insert(q);
        p = fresh;
        keys.insert(k);
      }
      RC_ASSERT(p.valid());
      p.encode(t.code);
      // The code rebuilds the same tree: encoding it again gives the same code.
      std::uint8_t again[PosTree::kMax];
      t.load().encode(again);
      for (int i = 0; i < t.n; ++i) RC_ASSERT(again[i] == t.code[i]);
      // In order, the keys of a std::set.
      const PosTree r = t.load();
      int first = -1;
      for (int i = 0; i < t.n; ++i)
        if (r.contains(i) && (first < 0 || t.key[i] < t.key[first])) first = i;
      std::vector<int> seen;
      for (int i = first; i >= 0; i = r.next(i)) seen.push_back(t.key[i]);
      RC_ASSERT(seen == std::vector<int>(keys.begin(), keys.end()));
    }
  }));
}

}  // namespace bfq_pos_tree_test
