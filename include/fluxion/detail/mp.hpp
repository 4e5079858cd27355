#pragma once
// Minimal type-list metaprogramming used by the type-level layers. Kept
// separate from Hana so that headers reachable from nvcc translation units
// never instantiate Hana's algorithm objects.
#include <cstddef>
#include <type_traits>
#include <utility>

namespace fluxion::detail {

template <class... Ts>
struct type_list {
  static constexpr std::size_t size = sizeof...(Ts);
};

template <class T>
struct type_identity {
  using type = T;
};

// if_t<B, T, F>: T when B, else F. An alias of a member alias of one of two
// classes, where std::conditional_t instantiates a class for every (B, T, F).
template <bool B>
struct pick {
  template <class T, class F>
  using type = T;
};
template <>
struct pick<false> {
  template <class T, class F>
  using type = F;
};
template <bool B, class T, class F>
using if_t = typename pick<B>::template type<T, F>;

// concat. Eight lists a step, so that long lists of lists (filters over the
// references of a large model) stay well within nvcc's limit on nested
// instantiations.
template <class... Ls>
struct concat;
template <>
struct concat<> {
  using type = type_list<>;
};
template <class... A>
struct concat<type_list<A...>> {
  using type = type_list<A...>;
};
// Two and three lists, the common cases, in one step.
template <class... A, class... B>
struct concat<type_list<A...>, type_list<B...>> {
  using type = type_list<A..., B...>;
};
template <class... A, class... B, class... C>
struct concat<type_list<A...>, type_list<B...>, type_list<C...>> {
  using type = type_list<A..., B..., C...>;
};
template <class... A, class... B, class... Rest>
struct concat<type_list<A...>, type_list<B...>, Rest...> {
  using type = typename concat<type_list<A..., B...>, Rest...>::type;
};
template <class... A, class... B, class... C, class... D, class... E, class... F, class... G, class... H,
          class... Rest>
struct concat<type_list<A...>, type_list<B...>, type_list<C...>, type_list<D...>, type_list<E...>, type_list<F...>,
              type_list<G...>, type_list<H...>, Rest...> {
  using type = typename concat<type_list<A..., B..., C..., D..., E..., F..., G..., H...>, Rest...>::type;
};
template <class... Ls>
using concat_t = typename concat<Ls...>::type;

// Whether two types are one (as std::is_same_v, but a concept over the
// compiler's intrinsic, which g++ and nvcc's EDG both provide: neither a
// variable template specialization nor a std::is_same class is instantiated
// per pair, see contains_v).
template <class A, class B>
concept same_type = __is_same(A, B);

// contains
template <class L, class T>
struct contains;
template <class T, class... Ts>
struct contains<type_list<Ts...>, T> : std::bool_constant<(same_type<T, Ts> || ...)> {};
// A concept rather than a variable template: the compiler names (mangles)
// every variable template specialization it instantiates, and these are
// instantiated for large expression types by the thousand.
template <class L, class T>
concept contains_v = contains<L, T>::value;

// index_of (size when absent). One class per lookup: a recursive definition
// instantiates a class for every suffix of the list (both arms of ?: are
// instantiated), each spelling that suffix.
template <class T, class... Ts>
constexpr std::size_t index_in() {
  constexpr bool hit[] = {same_type<T, Ts>..., true};
  std::size_t i = 0;
  while (!hit[i]) ++i;
  return i;
}
template <class L, class T>
struct index_of;
template <class T, class... Ts>
struct index_of<type_list<Ts...>, T> : std::integral_constant<std::size_t, index_in<T, Ts...>()> {};
template <class L, class T>
inline constexpr std::size_t index_of_v = index_of<L, T>::value;

// at: element I of a list, by overload resolution against a class that
// derives from (position, element) for every element: one class per list
// rather than one per element skipped.
template <std::size_t I, class T>
struct indexed {
  using type = T;
};
template <class Seq, class... Ts>
struct indexer;
template <std::size_t... Is, class... Ts>
struct indexer<std::index_sequence<Is...>, Ts...> : indexed<Is, Ts>... {};
template <std::size_t I, class T>
indexed<I, T> select_indexed(const indexed<I, T>&);
template <class L>
struct indexer_of;
template <class... Ts>
struct indexer_of<type_list<Ts...>> {
  using type = indexer<std::index_sequence_for<Ts...>, Ts...>;
};
template <class Indexer, std::size_t I>
using indexed_t = typename decltype(select_indexed<I>(std::declval<Indexer>()))::type;
template <class L, std::size_t I>
struct at {
  static_assert(I < L::size, "fluxion::detail::at: the position is past the end of the list.");
  using type = indexed_t<typename indexer_of<L>::type, I>;
};
template <class L, std::size_t I>
using at_t = typename at<L, I>::type;

// push_back_unique: append T unless present
template <class L, class T>
struct push_unique;
template <class... Ts, class T>
struct push_unique<type_list<Ts...>, T> {
  using type = if_t<(same_type<T, Ts> || ...), type_list<Ts...>, type_list<Ts..., T>>;
};

// unique: first occurrences, in order; eight elements a step (as concat).
template <class Acc, class L>
struct unique_impl;
template <class Acc>
struct unique_impl<Acc, type_list<>> {
  using type = Acc;
};
template <class Acc, class H, class... Ts>
struct unique_impl<Acc, type_list<H, Ts...>> {
  using type = typename unique_impl<typename push_unique<Acc, H>::type, type_list<Ts...>>::type;
};
template <class L, class... T>
struct push_unique_each {
  using type = L;
};
template <class L, class H, class... T>
struct push_unique_each<L, H, T...> : push_unique_each<typename push_unique<L, H>::type, T...> {};
template <class Acc, class T1, class T2, class T3, class T4, class T5, class T6, class T7, class T8, class... Ts>
struct unique_impl<Acc, type_list<T1, T2, T3, T4, T5, T6, T7, T8, Ts...>> {
  using type = typename unique_impl<typename push_unique_each<Acc, T1, T2, T3, T4, T5, T6, T7, T8>::type,
                                    type_list<Ts...>>::type;
};
template <class L>
using unique_t = typename unique_impl<type_list<>, L>::type;

// filter by a predicate template
template <template <class> class Pred, class L>
struct filter;
// The positions kept, then the elements at them: no intermediate lists.
template <bool... Keep>
struct kept_positions {
  static constexpr std::size_t count = (std::size_t(Keep) + ... + 0);
  static constexpr auto positions = [] {
    constexpr bool keep[] = {Keep..., false};
    struct array {
      std::size_t at[count > 0 ? count : 1];
    } out{};
    // A range loop: `i < sizeof...(Keep)` with an empty pack is a comparison
    // with zero that nvcc warns about (#186) in every unit that filters one.
    std::size_t k = 0, i = 0;
    for (const bool kept : keep) {  // the trailing false is never kept
      if (kept) out.at[k++] = i;
      ++i;
    }
    return out;
  }();
};
template <class L, class Kept, class Seq>
struct select_positions;
template <class L, class Kept, std::size_t... K>
struct select_positions<L, Kept, std::index_sequence<K...>> {
  using type = type_list<indexed_t<typename indexer_of<L>::type, Kept::positions.at[K]>...>;
};
template <template <class> class Pred, class... Ts>
struct filter<Pred, type_list<Ts...>> {
  using kept = kept_positions<bool(Pred<Ts>::value)...>;
  using type = typename select_positions<type_list<Ts...>, kept, std::make_index_sequence<kept::count>>::type;
};
template <template <class> class Pred, class L>
using filter_t = typename filter<Pred, L>::type;

// transform
template <template <class> class F, class L>
struct transform;
template <template <class> class F, class... Ts>
struct transform<F, type_list<Ts...>> {
  using type = type_list<typename F<Ts>::type...>;
};
template <template <class> class F, class L>
using transform_t = typename transform<F, L>::type;

template <class... T>
inline constexpr bool always_false = false;
template <auto... V>
inline constexpr bool always_false_v = false;

}  // namespace fluxion::detail
