#pragma once
// Index spaces, index variables and the index expressions that address an
// element of a shaped symbol: a variable (`p`), a shifted variable (`k - 1`)
// or a fixed element (`2`). Extents live in types and are never unrolled into
// types per element, so a space of 1024 costs what a space of 8 costs.
#include <cstddef>
#include <type_traits>

#include <fluxion/config/fixed_string.hpp>
#include <fluxion/config/macros.hpp>

namespace fluxion {

// Whether consecutive elements of a space are stages (transport k -> k+1).
struct unordered {};
struct ordered {};

// A named compile-time extent: `using patch = fx::index<"patch", 8>;`.
template <fixed_string Name, int Extent, class Order = unordered>
struct index {
  using fluxion_index_space = void;
  static_assert(Extent > 0, "fluxion::index: an index space needs a positive extent.");
  static_assert(std::is_same_v<Order, unordered> || std::is_same_v<Order, ordered>,
                "fluxion::index: the third argument must be fluxion::ordered or fluxion::unordered.");
  static constexpr auto name = Name;
  static constexpr int extent = Extent;
  static constexpr bool is_ordered = std::is_same_v<Order, ordered>;
};

// Traits here test member tags, not template patterns: nvcc cannot match
// partial specializations over class-type template parameters such as names.
template <class T>
concept index_space = requires { typename T::fluxion_index_space; };

namespace detail {
// The value-level slot of one index written by the user: a variable with an
// offset (`k - 1` is offset -1), or a fixed element (Var = void, offset = n).
template <class Var>
struct index_slot {};
}  // namespace detail

// An index variable over `Space`; `Id` tells two variables over one space
// apart (`ivar<patch> p; ivar<patch, 1> q;`). `Name` is only for printing
// (`ivar<age, 0, "k">` prints as k); without it the space's name is used.
template <index_space Space, int Id = 0, fixed_string Name = "">
struct ivar {
  using fluxion_index_variable = void;
  using space = Space;
  static constexpr int id = Id;
  static constexpr auto name = Name;

  template <class Env>
  FLUXION_HOST_DEVICE static constexpr int value(const Env& env) {
    return env.template get<ivar>();
  }
};

template <class T>
concept index_variable = requires { typename T::fluxion_index_variable; };

// `k - 1`, `k + 2` as written by the user; lowered to ishift<k, off>.
template <index_variable V>
struct shifted_ivar {
  int offset;
};
template <index_variable V>
constexpr shifted_ivar<V> operator-(V, int n) {
  return {-n};
}
template <index_variable V>
constexpr shifted_ivar<V> operator+(V, int n) {
  return {n};
}

// Lowered index expressions (all information in the type).
template <index_variable V, int Offset>
struct ishift {
  using space = typename V::space;
  using var = V;
  static constexpr int offset = Offset;
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr int value(const Env& env) {
    return V::value(env) + Offset;
  }
};

template <int N>
struct ifix {
  using space = void;
  static constexpr int element = N;
  template <class Env>
  FLUXION_HOST_DEVICE static constexpr int value(const Env&) {
    return N;
  }
};

template <class T>
struct is_ishift : std::false_type {};
template <class V, int O>
struct is_ishift<ishift<V, O>> : std::true_type {};
// Whether index expression Ix, evaluated in environment e, lies in its
// space: always for a plain or fixed index; a shifted one may fall outside
// (stage k - 1 at k = 0), and a read there is zero.
template <class Ix, class Env>
FLUXION_HOST_DEVICE constexpr bool index_in_range(const Env& e) {
  if constexpr (is_ishift<Ix>::value) {
    const int v = Ix::value(e);
    return v >= 0 && v < Ix::space::extent;
  } else {
    return true;
  }
}

template <class T>
struct is_ifix : std::false_type {};
template <int N>
struct is_ifix<ifix<N>> : std::true_type {};

// ---------------------------------------------------------------------------
// Bindings of index variables to element numbers during evaluation. An
// environment is an aggregate of one `binding` per bound variable; looking a
// variable up is a base-class cast, so it costs nothing on the device.
template <class Var>
struct binding {
  int value;
};

template <class... Vars>
struct env : binding<Vars>... {
  template <class V>
  FLUXION_HOST_DEVICE constexpr int get() const {
    static_assert((std::is_same_v<V, Vars> || ...),
                  "fluxion: an index variable is read where it is not bound; every index variable "
                  "in an expression must be bound by its equation's left-hand side, by an "
                  "observable's indices, or by an enclosing reduction.");
    return static_cast<const binding<V>&>(*this).value;
  }

  // Binds V to v. A variable bound again (a reduction inside an alias
  // expanded where its variable is already bound) shadows the outer binding.
  template <class V>
  FLUXION_HOST_DEVICE constexpr auto bind(int v) const {
    if constexpr ((std::is_same_v<V, Vars> || ...)) {
      return rebind<V>(v);
    } else {
      return env<Vars..., V>{static_cast<const binding<Vars>&>(*this)..., binding<V>{v}};
    }
  }

  template <class V>
  FLUXION_HOST_DEVICE constexpr env rebind(int v) const {
    env copy = *this;
    static_cast<binding<V>&>(copy).value = v;
    return copy;
  }
};

}  // namespace fluxion
