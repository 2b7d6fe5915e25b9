// model/sched/bfq/bfq_pos_tree: the rq_pos_tree's shape, rebalanced as
// lib/rbtree.c rebalances it (see the header).
#include "model/sched/bfq/bfq_pos_tree.hpp"

namespace blkmc::sched {

PosTree::PosTree(const std::uint8_t* code, const int* key, int n) : n_(n) {
  for (int q = 0; q < n_; ++q) {
    left_[q] = right_[q] = parent_[q] = -1;
    key_[q] = key[q];
  }
  for (int q = 0; q < n_; ++q) {
    if (!(code[q] & kOn)) continue;
    on_[q] = true;
    red_[q] = (code[q] & kRed) != 0;
    parent_[q] = (code[q] & kParentMask) - 1;
    if (parent_[q] < 0) root_ = q;
    else if (code[q] & kRight) right_[parent_[q]] = q;
    else left_[parent_[q]] = q;
  }
}

void PosTree::encode(std::uint8_t* code) const {
  for (int q = 0; q < n_; ++q) {
    if (!on_[q]) {
      code[q] = 0;
      continue;
    }
    const int p = parent_[q];
    code[q] = static_cast<std::uint8_t>(kOn | (red_[q] ? kRed : 0) | (p >= 0 && right_[p] == q ? kRight : 0) |
                                        (p + 1));
  }
}

int PosTree::lookup(int sector, int* parent) const {
  int p = -1, at = root_;
  while (at >= 0) {
    p = at;
    if (sector > key_[at]) at = right_[at];
    else if (sector < key_[at]) at = left_[at];
    else break;
  }
  *parent = p;
  return at;
}

void PosTree::link_child(int parent, int old, int now) {
  if (parent < 0) root_ = now;
  else if (left_[parent] == old) left_[parent] = now;
  else right_[parent] = now;
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
    at = key_[q] > key_[at] ? right_[at] : left_[at];
  }
  on_[q] = true;
  left_[q] = right_[q] = -1;
  parent_[q] = p;
  red_[q] = true;
  if (p < 0) root_ = q;
  else if (key_[q] > key_[p]) right_[p] = q;
  else left_[p] = q;
  // __rb_insert
  int node = q, parent = p;
  while (true) {
    if (parent < 0) {
      red_[node] = false;
      break;
    }
    if (!red_[parent]) break;
    const int g = parent_[parent];
    int tmp = right_[g];
    if (parent != tmp) {  // parent is g's left child
      if (tmp >= 0 && red_[tmp]) {  // case 1: recolour, go up
        red_[tmp] = red_[parent] = false;
        node = g;
        parent = parent_[node];
        red_[node] = true;
        continue;
      }
      tmp = right_[parent];
      if (node == tmp) {  // case 2: left rotate at parent
        tmp = left_[node];
        right_[parent] = tmp;
        left_[node] = parent;
        if (tmp >= 0) {
          parent_[tmp] = parent;
          red_[tmp] = false;
        }
        parent_[parent] = node;
        red_[parent] = true;
        parent = node;
        tmp = right_[node];
      }
      // case 3: right rotate at g
      left_[g] = tmp;
      right_[parent] = g;
      if (tmp >= 0) {
        parent_[tmp] = g;
        red_[tmp] = false;
      }
      rotate_set_parents(g, parent, true);
      break;
    }
    tmp = left_[g];  // parent is g's right child: the mirror
    if (tmp >= 0 && red_[tmp]) {
      red_[tmp] = red_[parent] = false;
      node = g;
      parent = parent_[node];
      red_[node] = true;
      continue;
    }
    tmp = left_[parent];
    if (node == tmp) {
      tmp = right_[node];
      left_[parent] = tmp;
      right_[node] = parent;
      if (tmp >= 0) {
        parent_[tmp] = parent;
        red_[tmp] = false;
      }
      parent_[parent] = node;
      red_[parent] = true;
      parent = node;
      tmp = left_[node];
    }
    right_[g] = tmp;
    left_[parent] = g;
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
  const int child = right_[node];
  int tmp = left_[node];
  int rebalance = -1;
  if (tmp < 0) {  // at most a right child: it takes node's place and colour
    const int p = parent_[node];
    link_child(p, node, child);
    if (child >= 0) {
      parent_[child] = p;
      red_[child] = red_[node];
    } else if (!red_[node]) {
      rebalance = p;
    }
  } else if (child < 0) {  // only a left child
    const int p = parent_[node];
    link_child(p, node, tmp);
    parent_[tmp] = p;
    red_[tmp] = red_[node];
  } else {  // two children: the successor takes node's place
    int successor = child, parent, child2;
    tmp = left_[child];
    if (tmp < 0) {
      parent = successor;
      child2 = right_[successor];
    } else {
      do {
        parent = successor;
        successor = tmp;
        tmp = left_[tmp];
      } while (tmp >= 0);
      child2 = right_[successor];
      left_[parent] = child2;
      right_[successor] = child;
      parent_[child] = successor;
    }
    tmp = left_[node];
    left_[successor] = tmp;
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
  left_[node] = right_[node] = parent_[node] = -1;
  red_[node] = false;
  if (rebalance >= 0) erase_color(rebalance);
}

static bool is_red(const bool* red, int n) { return n >= 0 && red[n]; }

// ____rb_erase_color: the subtree at parent's `node` side lost a black.
void PosTree::erase_color(int parent) {
  int node = -1;
  while (true) {
    int sibling = right_[parent];
    if (node != sibling) {  // node is the left child
      if (is_red(red_, sibling)) {  // case 1: left rotate at parent
        int tmp1 = left_[sibling];
        right_[parent] = tmp1;
        left_[sibling] = parent;
        parent_[tmp1] = parent;
        red_[tmp1] = false;
        rotate_set_parents(parent, sibling, true);
        sibling = tmp1;
      }
      int tmp1 = right_[sibling];
      if (!is_red(red_, tmp1)) {
        const int tmp2 = left_[sibling];
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
        // case 3: right rotate at sibling
        tmp1 = right_[tmp2];
        left_[sibling] = tmp1;
        right_[tmp2] = sibling;
        right_[parent] = tmp2;
        if (tmp1 >= 0) {
          parent_[tmp1] = sibling;
          red_[tmp1] = false;
        }
        tmp1 = sibling;
        sibling = tmp2;
      }
      // case 4: left rotate at parent
      const int tmp2 = left_[sibling];
      right_[parent] = tmp2;
      left_[sibling] = parent;
      parent_[tmp1] = sibling;
      red_[tmp1] = false;
      if (tmp2 >= 0) parent_[tmp2] = parent;
      rotate_set_parents(parent, sibling, false);
      break;
    }
    sibling = left_[parent];  // the mirror
    if (is_red(red_, sibling)) {
      int tmp1 = right_[sibling];
      left_[parent] = tmp1;
      right_[sibling] = parent;
      parent_[tmp1] = parent;
      red_[tmp1] = false;
      rotate_set_parents(parent, sibling, true);
      sibling = tmp1;
    }
    int tmp1 = left_[sibling];
    if (!is_red(red_, tmp1)) {
      const int tmp2 = right_[sibling];
      if (!is_red(red_, tmp2)) {
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
      tmp1 = left_[tmp2];
      right_[sibling] = tmp1;
      left_[tmp2] = sibling;
      left_[parent] = tmp2;
      if (tmp1 >= 0) {
        parent_[tmp1] = sibling;
        red_[tmp1] = false;
      }
      tmp1 = sibling;
      sibling = tmp2;
    }
    const int tmp2 = right_[sibling];
    left_[parent] = tmp2;
    right_[sibling] = parent;
    parent_[tmp1] = sibling;
    red_[tmp1] = false;
    if (tmp2 >= 0) parent_[tmp2] = parent;
    rotate_set_parents(parent, sibling, false);
    break;
  }
}

int PosTree::next(int q) const {
  if (right_[q] >= 0) {
    q = right_[q];
    while (left_[q] >= 0) q = left_[q];
    return q;
  }
  int p = parent_[q];
  while (p >= 0 && q == right_[p]) {
    q = p;
    p = parent_[p];
  }
  return p;
}

int PosTree::prev(int q) const {
  if (left_[q] >= 0) {
    q = left_[q];
    while (right_[q] >= 0) q = right_[q];
    return q;
  }
  int p = parent_[q];
  while (p >= 0 && q == left_[p]) {
    q = p;
    p = parent_[p];
  }
  return p;
}

int PosTree::black_height(int n, bool* ok) const {
  if (n < 0) return 1;
  if (red_[n] && (is_red(red_, left_[n]) || is_red(red_, right_[n]))) *ok = false;
  if (left_[n] >= 0 && (parent_[left_[n]] != n || key_[left_[n]] >= key_[n])) *ok = false;
  if (right_[n] >= 0 && (parent_[right_[n]] != n || key_[right_[n]] <= key_[n])) *ok = false;
  const int l = black_height(left_[n], ok), r = black_height(right_[n], ok);
  if (l != r) *ok = false;
  return l + (red_[n] ? 0 : 1);
}

bool PosTree::valid() const {
  bool ok = root_ < 0 || (!red_[root_] && parent_[root_] < 0);
  black_height(root_, &ok);
  return ok;
}

}  // namespace blkmc::sched
