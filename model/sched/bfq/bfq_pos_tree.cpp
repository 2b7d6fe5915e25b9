// model/sched/bfq/bfq_pos_tree: the rq_pos_tree's shape, rebalanced as
// lib/rbtree.c rebalances it (see the header).
#include "model/sched/bfq/bfq_pos_tree.hpp"

namespace blkmc::sched {

namespace {
bool is_red(const bool* red, int n) { return n >= 0 && red[n]; }
}  // namespace

PosTree::PosTree(const std::uint8_t* code, const int* key, int n) : n_(n) {
  for (int q = 0; q < n_; ++q) {
    kid_[q][0] = kid_[q][1] = parent_[q] = -1;
    key_[q] = key[q];
  }
  for (int q = 0; q < n_; ++q) {
    if (!(code[q] & kOn)) continue;
    on_[q] = true;
    red_[q] = (code[q] & kRed) != 0;
    parent_[q] = (code[q] & kParentMask) - 1;
    if (parent_[q] < 0) root_ = q;
    else kid_[parent_[q]][(code[q] & kRight) ? 1 : 0] = q;
  }
}

void PosTree::encode(std::uint8_t* code) const {
  for (int q = 0; q < n_; ++q) {
    if (!on_[q]) {
      code[q] = 0;
      continue;
    }
    const int p = parent_[q];
    code[q] = static_cast<std::uint8_t>(kOn | (red_[q] ? kRed : 0) | (p >= 0 && kid_[p][1] == q ? kRight : 0) |
                                        (p + 1));
  }
}

int PosTree::lookup(int sector, int* parent) const {
  int p = -1, at = root_;
  while (at >= 0 && sector != key_[at]) {
    p = at;
    at = kid_[at][sector > key_[at] ? 1 : 0];
  }
  *parent = at >= 0 ? at : p;
  return at;
}

void PosTree::link_child(int parent, int old, int now) {
  if (parent < 0) root_ = now;
  else kid_[parent][kid_[parent][0] == old ? 0 : 1] = now;
}

// `now` takes `old`'s place and colour; `old` becomes its child, coloured.
void PosTree::rotate_set_parents(int old, int now, bool old_red) {
  const int p = parent_[old];
  parent_[now] = p;
  red_[now] = red_[old];
  parent_[old] = now;
  red_[old] = old_red;
  link_child(p, old, now);
}

void PosTree::insert(int q) {
  int p = -1, at = root_;
  while (at >= 0) {
    p = at;
    at = kid_[at][key_[q] > key_[at] ? 1 : 0];
  }
  on_[q] = true;
  kid_[q][0] = kid_[q][1] = -1;
  parent_[q] = p;
  red_[q] = true;
  if (p < 0) root_ = q;
  else kid_[p][key_[q] > key_[p] ? 1 : 0] = q;
  // __rb_insert; d is the side of g that parent hangs on.
  int node = q, parent = p;
  while (true) {
    if (parent < 0) {
      red_[node] = false;
      break;
    }
    if (!red_[parent]) break;
    const int g = parent_[parent];
    const int d = kid_[g][1] == parent ? 1 : 0;
    int tmp = kid_[g][1 - d];  // the uncle
    if (is_red(red_, tmp)) {  // case 1: recolour, go up
      red_[tmp] = red_[parent] = false;
      node = g;
      parent = parent_[node];
      red_[node] = true;
      continue;
    }
    tmp = kid_[parent][1 - d];
    if (node == tmp) {  // case 2: rotate at parent, away from d
      tmp = kid_[node][d];
      kid_[parent][1 - d] = tmp;
      kid_[node][d] = parent;
      if (tmp >= 0) {
        parent_[tmp] = parent;
        red_[tmp] = false;
      }
      parent_[parent] = node;
      red_[parent] = true;
      parent = node;
      tmp = kid_[node][1 - d];
    }
    // case 3: rotate at g, towards 1 - d
    kid_[g][d] = tmp;
    kid_[parent][1 - d] = g;
    if (tmp >= 0) {
      parent_[tmp] = g;
      red_[tmp] = false;
    }
    rotate_set_parents(g, parent, true);
    break;
  }
}

void PosTree::erase(int node) {
  if (!on_[node]) return;
  on_[node] = false;
  const int child = kid_[node][1];
  int tmp = kid_[node][0];
  int rebalance = -1;
  if (tmp < 0 || child < 0) {  // at most one child: it takes node's place and colour
    const int only = tmp < 0 ? child : tmp, p = parent_[node];
    link_child(p, node, only);
    if (only >= 0) {
      parent_[only] = p;
      red_[only] = red_[node];
    } else if (!red_[node]) {
      rebalance = p;
    }
  } else {  // two children: the successor takes node's place
    int successor = child, parent, child2;
    tmp = kid_[child][0];
    if (tmp < 0) {
      parent = successor;
      child2 = kid_[successor][1];
    } else {
      do {
        parent = successor;
        successor = tmp;
        tmp = kid_[tmp][0];
      } while (tmp >= 0);
      child2 = kid_[successor][1];
      kid_[parent][0] = child2;
      kid_[successor][1] = child;
      parent_[child] = successor;
    }
    tmp = kid_[node][0];
    kid_[successor][0] = tmp;
    parent_[tmp] = successor;
    const int p = parent_[node];
    link_child(p, node, successor);
    if (child2 >= 0) {
      parent_[child2] = parent;
      red_[child2] = false;
    } else if (!red_[successor]) {
      rebalance = parent;
    }
    parent_[successor] = p;
    red_[successor] = red_[node];
  }
  kid_[node][0] = kid_[node][1] = parent_[node] = -1;
  red_[node] = false;
  if (rebalance >= 0) erase_color(rebalance);
}

// ____rb_erase_color: the subtree at parent's `node` side lost a black; d
// is that side.
void PosTree::erase_color(int parent) {
  int node = -1;
  while (true) {
    const int d = node == kid_[parent][1] ? 1 : 0;
    int sibling = kid_[parent][1 - d];
    if (is_red(red_, sibling)) {  // case 1: rotate at parent towards d
      const int tmp1 = kid_[sibling][d];
      kid_[parent][1 - d] = tmp1;
      kid_[sibling][d] = parent;
      parent_[tmp1] = parent;
      red_[tmp1] = false;
      rotate_set_parents(parent, sibling, true);
      sibling = tmp1;
    }
    int tmp1 = kid_[sibling][1 - d];
    if (!is_red(red_, tmp1)) {
      const int tmp2 = kid_[sibling][d];
      if (!is_red(red_, tmp2)) {  // case 2: flip the sibling's colour
        red_[sibling] = true;
        if (red_[parent]) {
          red_[parent] = false;
        } else {
          node = parent;
          parent = parent_[node];
          if (parent >= 0) continue;
        }
        break;
      }
      // case 3: rotate at sibling away from d
      tmp1 = kid_[tmp2][1 - d];
      kid_[sibling][d] = tmp1;
      kid_[tmp2][1 - d] = sibling;
      kid_[parent][1 - d] = tmp2;
      if (tmp1 >= 0) {
        parent_[tmp1] = sibling;
        red_[tmp1] = false;
      }
      tmp1 = sibling;
      sibling = tmp2;
    }
    // case 4: rotate at parent towards d
    const int tmp2 = kid_[sibling][d];
    kid_[parent][1 - d] = tmp2;
    kid_[sibling][d] = parent;
    parent_[tmp1] = sibling;
    red_[tmp1] = false;
    if (tmp2 >= 0) parent_[tmp2] = parent;
    rotate_set_parents(parent, sibling, false);
    break;
  }
}

int PosTree::step(int q, int dir) const {
  if (kid_[q][dir] >= 0) {
    q = kid_[q][dir];
    while (kid_[q][1 - dir] >= 0) q = kid_[q][1 - dir];
    return q;
  }
  int p = parent_[q];
  while (p >= 0 && q == kid_[p][dir]) {
    q = p;
    p = parent_[p];
  }
  return p;
}

int PosTree::next(int q) const { return step(q, 1); }
int PosTree::prev(int q) const { return step(q, 0); }

int PosTree::black_height(int n, bool* ok) const {
  if (n < 0) return 1;
  if (red_[n] && (is_red(red_, kid_[n][0]) || is_red(red_, kid_[n][1]))) *ok = false;
  for (int d : {0, 1}) {
    const int c = kid_[n][d];
    if (c >= 0 && (parent_[c] != n || (d ? key_[c] <= key_[n] : key_[c] >= key_[n]))) *ok = false;
  }
  const int l = black_height(kid_[n][0], ok), r = black_height(kid_[n][1], ok);
  if (l != r) *ok = false;
  return l + (red_[n] ? 0 : 1);
}

bool PosTree::valid() const {
  bool ok = root_ < 0 || (!red_[root_] && parent_[root_] < 0);
  black_height(root_, &ok);
  return ok;
}

}  // namespace blkmc::sched
