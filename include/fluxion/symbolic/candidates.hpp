#pragma once
// Candidate elements: for a derivative expression D and one of the variables
// W it is taken with respect to, a short list of index expressions (in the
// other variables) outside of which D is structurally zero. A Kronecker delta
// delta(k - 1, W) pins W to k - 1; a product is pinned where either factor
// is; a sum where both terms are. Walking a Jacobian row then visits only
// these elements of W's space instead of all of them, so a pattern costs
// O(nnz) for banded and diagonal blocks, not O(rows x columns).
//
// The lists are supersets: structure<D>::nonzero still decides each entry,
// so patterns stay exact. Where nothing pins W (a dense block, a value that
// may be non-zero anywhere) the answer is `every_element`.
#include <cstddef>
#include <type_traits>

#include <fluxion/config/macros.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion::detail {

struct every_element {};

template <class I, class W>
inline constexpr bool index_mentions = contains_v<typename index_vars<I>::type, W>;

// I shifted by Offset (an index expression in the same variable).
template <class I, int Offset>
struct shift_index;
template <index_variable V, int Offset>
struct shift_index<V, Offset> {
  using type = if_t<Offset == 0, V, ishift<V, Offset>>;
};
template <class V, int O, int Offset>
struct shift_index<ishift<V, O>, Offset> {
  using type = if_t<O + Offset == 0, V, ishift<V, O + Offset>>;
};
template <int N, int Offset>
struct shift_index<ifix<N>, Offset> {
  using type = ifix<N + Offset>;
};

// The value of W where index expressions I and J are equal, if one of them
// is W (possibly shifted) and the other does not mention it.
template <class I, class J, class W>
struct solve_equal {
  using type = every_element;
};
template <class I, class J, class W>
  requires(std::is_same_v<I, W> && !index_mentions<J, W>)
struct solve_equal<I, J, W> {
  using type = type_list<J>;
};
template <class V, int O, class J, class W>
  requires(std::is_same_v<V, W> && !index_mentions<J, W>)
struct solve_equal<ishift<V, O>, J, W> {
  using type = type_list<typename shift_index<J, -O>::type>;  // W + O == J
};
template <class I, class J, class W>
  requires(!index_mentions<I, W> && index_mentions<J, W>)
struct solve_equal<I, J, W> : solve_equal<J, I, W> {};

template <class E, class W>
struct candidates {
  using type = every_element;  // values, time, constants: non-zero anywhere
};
template <class E, class W>
using candidates_t = typename candidates<E, W>::type;

// Where both of two lists hold, either list is a superset: take the shorter.
template <class A, class B>
struct intersect_candidates {
  static constexpr auto pick() {
    if constexpr (std::is_same_v<A, every_element>) return type_identity<B>{};
    else if constexpr (std::is_same_v<B, every_element>) return type_identity<A>{};
    else return type_identity<if_t<(B::size < A::size), B, A>>{};
  }
  using type = typename decltype(pick())::type;
};
template <class A, class B>
struct union_candidates {
  using type = every_element;
};
template <class... A, class... B>
struct union_candidates<type_list<A...>, type_list<B...>> {
  using type = type_list<A..., B...>;
};

template <class W>
struct candidates<zero, W> {
  using type = type_list<>;
};
template <class I, class J, class W>
struct candidates<kdelta<I, J>, W> : solve_equal<I, J, W> {};

template <class Op>
inline constexpr bool zero_in_zero_out = std::is_same_v<Op, op::neg> || std::is_same_v<Op, op::abs> ||
                                         std::is_same_v<Op, op::sign> || std::is_same_v<Op, op::sqrt> ||
                                         std::is_same_v<Op, op::sin> || std::is_same_v<Op, op::tanh>;
template <class Op, class A, class W>
  requires zero_in_zero_out<Op>
struct candidates<unary<Op, A>, W> : candidates<A, W> {};

template <class Op, class A, class B, class W>
struct candidates<binary<Op, A, B>, W> {
  static constexpr auto pick() {
    if constexpr (std::is_same_v<Op, op::mul>) {
      return type_identity<typename intersect_candidates<candidates_t<A, W>, candidates_t<B, W>>::type>{};
    } else if constexpr (std::is_same_v<Op, op::div>) {
      return type_identity<candidates_t<A, W>>{};
    } else if constexpr (std::is_same_v<Op, op::add> || std::is_same_v<Op, op::sub> ||
                         std::is_same_v<Op, op::min> || std::is_same_v<Op, op::max>) {
      return type_identity<typename union_candidates<candidates_t<A, W>, candidates_t<B, W>>::type>{};
    } else {
      return type_identity<every_element>{};
    }
  }
  using type = typename decltype(pick())::type;
};
template <class A, int N, class W>
  requires(N > 0)
struct candidates<powi<A, N>, W> : candidates<A, W> {};
template <class C, class A, class B, class W>
struct candidates<where_node<C, A, B>, W> : union_candidates<candidates_t<A, W>, candidates_t<B, W>> {};

// A reduction is non-zero where some term is: the term's candidates, unless
// they name the reduction's own variable.
template <class L, class V>
struct free_of_var {
  using type = every_element;
};
template <class... I, class V>
struct free_of_var<type_list<I...>, V> {
  using type = if_t<(index_mentions<I, V> || ...), every_element, type_list<I...>>;
};
template <class Op, class V, class A, class W>
struct candidates<reduce<Op, V, A>, W> {
  using type = typename free_of_var<candidates_t<A, W>, V>::type;
};
// A evaluated one stage back: its candidates with V moved back one stage.
template <class L, class V>
struct one_stage_back {
  using type = every_element;
};
template <class... I, class V>
struct one_stage_back<type_list<I...>, V> {
  using type = type_list<typename subst_index<I, V, ishift<V, -1>>::type...>;
};
template <class V, class A, class W>
struct candidates<at_previous<V, A>, W> : one_stage_back<candidates_t<A, W>, V> {};
template <class V, class A, class W>
struct candidates<if_next<V, A>, W> : candidates<A, W> {};

// Whether the list names only variables bound before W (none of Later).
template <class I, class Later>
inline constexpr bool mentions_any = false;
template <class I, class... Later>
inline constexpr bool mentions_any<I, type_list<Later...>> = (index_mentions<I, Later> || ...);
template <class L, class Later>
inline constexpr bool usable_candidates = false;
template <class... I, class Later>
inline constexpr bool usable_candidates<type_list<I...>, Later> = (!mentions_any<I, Later> && ...);

// Calls f(env) for every element of Vars' spaces where D may be non-zero,
// in the order for_each_element gives (last variable fastest, ascending):
// the candidates' values inside the space, sorted and without repeats, or
// the whole space where D does not pin the variable.
template <class D, class Vars>
struct for_each_candidate;
template <class D>
struct for_each_candidate<D, type_list<>> {
  template <class Env, class F>
  FLUXION_HOST_DEVICE static constexpr void run(const Env& e, const F& f) {
    f(e);
  }
};
template <class D, class W, class... Ws>
struct for_each_candidate<D, type_list<W, Ws...>> {
  using list = candidates_t<D, W>;
  using next = for_each_candidate<D, type_list<Ws...>>;

  template <class... I, class Env>
  FLUXION_HOST_DEVICE static constexpr int values(type_list<I...>, const Env& e, int* out) {
    int n = 0;
    const int given[] = {I::value(e)..., 0};
    for (int c = 0; c < int(sizeof...(I)); ++c) {
      const int v = given[c];
      if (v < 0 || v >= W::space::extent) continue;
      int at = n;  // insertion sort, dropping repeats
      while (at > 0 && out[at - 1] > v) --at;
      if (at > 0 && out[at - 1] == v) continue;
      for (int m = n; m > at; --m) out[m] = out[m - 1];
      out[at] = v;
      ++n;
    }
    return n;
  }

  template <class Env, class F>
  FLUXION_HOST_DEVICE static constexpr void run(const Env& e, const F& f) {
    if constexpr (usable_candidates<list, type_list<W, Ws...>>) {
      int found[list::size + 1] = {};
      const int n = values(list{}, e, found);
      for (int c = 0; c < n; ++c) next::run(e.template bind<W>(found[c]), f);
    } else {
      for (int i = 0; i < W::space::extent; ++i) next::run(e.template bind<W>(i), f);
    }
  }
};

}  // namespace fluxion::detail

namespace fluxion::detail {

// At most how many elements for_each_candidate<D, Vars> visits for one
// binding of the other variables: for each variable, its candidates (at
// most the space's extent) where they are usable, else the whole space.
// Read from types alone, so a walk can be sized before it is run.
template <class D, class Vars>
struct candidate_visits;
template <class D>
struct candidate_visits<D, type_list<>> {
  static constexpr std::size_t value = 1;
};
template <class D, class W, class... Ws>
struct candidate_visits<D, type_list<W, Ws...>> {
  static constexpr std::size_t here() {
    using list = candidates_t<D, W>;
    if constexpr (usable_candidates<list, type_list<W, Ws...>>)
      return list::size < std::size_t(W::space::extent) ? list::size : std::size_t(W::space::extent);
    else
      return std::size_t(W::space::extent);
  }
  static constexpr std::size_t value = here() * candidate_visits<D, type_list<Ws...>>::value;
};

}  // namespace fluxion::detail
