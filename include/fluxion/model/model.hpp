#pragma once
// A model: the statements of one system, kept as a structural value so that
// `compiled<model, T>` can take the model itself as a template argument.
//
//   constexpr auto sir = fx::model(fx::states(S, I, R), fx::params(beta, gamma),
//                                  fx::d(S) = -beta * S * I, ...);
#include <type_traits>

#include <fluxion/detail/mp.hpp>
#include <fluxion/model/statements.hpp>
#include <fluxion/symbolic/lower.hpp>

namespace fluxion {

template <class... Items>
struct model_def;
template <>
struct model_def<> {};
template <class H, class... T>
struct model_def<H, T...> {
  H head;
  model_def<T...> tail;
};

template <class... Items>
constexpr model_def<Items...> model(Items... items);

namespace detail {
template <class H, class... T>
constexpr model_def<H, T...> make_model(H h, T... t) {
  if constexpr (sizeof...(T) == 0) {
    return {h, {}};
  } else {
    return {h, make_model(t...)};
  }
}
}  // namespace detail

template <class... Items>
constexpr model_def<Items...> model(Items... items) {
  static_assert(sizeof...(Items) > 0, "fluxion::model: a model needs at least one statement.");
  return detail::make_model(items...);
}

// The lowered model: a flat list of empty statement types.
template <class... Items>
struct lowered_model {
  using items = detail::type_list<Items...>;
};

namespace detail {
template <class Item, class Rest>
struct prepend_item;
template <class Item, class... Rest>
struct prepend_item<Item, lowered_model<Rest...>> {
  using type = lowered_model<Item, Rest...>;
};
}  // namespace detail

template <>
struct lower_node<model_def<>> {
  template <model_def<> V>
  using type = lowered_model<>;
};
template <class H, class... T>
struct lower_node<model_def<H, T...>> {
  template <model_def<H, T...> V>
  using type = typename detail::prepend_item<lowered<V.head>, lowered<V.tail>>::type;
};

template <class T>
struct is_model_def : std::false_type {};
template <class... I>
struct is_model_def<model_def<I...>> : std::true_type {};

}  // namespace fluxion
