#pragma once
// Minimal type-list metaprogramming used by the type-level layers. Kept
// separate from Hana so that headers reachable from nvcc translation units
// never instantiate Hana's algorithm objects.
#include <cstddef>
#include <type_traits>

namespace fluxion::detail {

template <class... Ts>
struct type_list {
  static constexpr std::size_t size = sizeof...(Ts);
};

template <class T>
struct type_identity {
  using type = T;
};

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

// Whether two types are one (as std::is_same_v, but a concept: no variable
// template specialization is instantiated per pair, see contains_v).
template <class A, class B>
concept same_type = std::is_same<A, B>::value;

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

// index_of (size when absent)
template <class L, class T>
struct index_of;
template <class T>
struct index_of<type_list<>, T> : std::integral_constant<std::size_t, 0> {};
template <class T, class H, class... Ts>
struct index_of<type_list<H, Ts...>, T>
    : std::integral_constant<std::size_t,
                             same_type<T, H> ? 0 : 1 + index_of<type_list<Ts...>, T>::value> {};
template <class L, class T>
inline constexpr std::size_t index_of_v = index_of<L, T>::value;

// at
template <class L, std::size_t I>
struct at;
template <class H, class... Ts>
struct at<type_list<H, Ts...>, 0> {
  using type = H;
};
template <class H, class... Ts, std::size_t I>
struct at<type_list<H, Ts...>, I> {
  using type = typename at<type_list<Ts...>, I - 1>::type;
};
template <class L, std::size_t I>
using at_t = typename at<L, I>::type;

// push_back_unique: append T unless present
template <class L, class T>
struct push_unique;
template <class... Ts, class T>
struct push_unique<type_list<Ts...>, T> {
  using type = std::conditional_t<(same_type<T, Ts> || ...), type_list<Ts...>, type_list<Ts..., T>>;
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
template <template <class> class Pred, class... Ts>
struct filter<Pred, type_list<Ts...>> {
  using type = concat_t<std::conditional_t<Pred<Ts>::value, type_list<Ts>, type_list<>>...>;
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
