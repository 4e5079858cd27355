// Host threads as the members of a group that integrates one trajectory
// together (fluxion/solve/cooperative.hpp, solve/sensitivity_columns.hpp:
// on a GPU a warp's lanes): sync is a std::barrier; sum adds the members'
// values in rank order and broadcast gives member `from`'s value, both
// through one slot per member and the same on every member.
#pragma once
#include <barrier>

namespace support {

template <class T>
struct host_members {
  unsigned r, n;
  std::barrier<>* meet;
  T* slots;  // n values, shared by the members
  unsigned rank() const { return r; }
  unsigned size() const { return n; }
  void sync() const { meet->arrive_and_wait(); }
  T sum(T v) const {
    slots[r] = v;
    sync();
    T s = slots[0];
    for (unsigned i = 1; i < n; ++i) s += slots[i];
    sync();  // every member has read the slots before they are written again
    return s;
  }
  T broadcast(T v, int from) const {
    slots[r] = v;
    sync();
    const T out = slots[from];
    sync();
    return out;
  }
};

}  // namespace support
