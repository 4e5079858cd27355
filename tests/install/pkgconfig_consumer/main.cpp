// Built against the installed headers with the flags of `pkg-config --cflags
// --libs fluxion` alone (see tests/install/check.sh): no -std here, so the
// C++20 flag must come from fluxion.pc, and the view type says whether the
// libcu++ flags came with it (fx::view is cuda::std::mdspan with libcu++).
#include <fluxion/fluxion.hpp>
#include <fluxion/layout/view.hpp>

#include <array>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace fx = fluxion;

using cell = fx::index<"cell", 2>;
constexpr fx::state<"x", cell> x;
constexpr fx::param<"k"> k;
constexpr fx::ivar<cell, 0, "c"> c;
constexpr auto decay = fx::model(fx::states(x), fx::params(k), fx::d(x(c)) = -k * x(c));
using M = fx::compiled<decay, double>;

int main() {
  static_assert(__cplusplus >= 202002L, "fluxion.pc must carry -std=c++20");
  std::array<double, 2> x0{2.0, 4.0}, p{0.5}, dx{};
  fx::host::rhs(M{}, 0.0, std::span<const double>(x0), std::span<const double>(p), std::span<double>(dx));
  const auto v = fx::view<M::layout::state>(x, dx.data());
#if FLUXION_VIEW_IS_MDSPAN
  const char* kind = "cuda::std::mdspan";
  static_assert(std::is_same_v<std::remove_const_t<decltype(v)>,
                               ::cuda::std::mdspan<double, ::cuda::std::extents<std::size_t, 2>, ::cuda::std::layout_stride>>);
#else
  const char* kind = "fallback";
#endif
  std::printf("fluxion %s: dx = %g; view: %s\n", fluxion::version_string, v(0), kind);
  return std::strcmp(fluxion::version_string, FLUXION_VERSION_STRING) == 0 && v(0) == -1.0 && v(1) == -2.0 ? 0 : 1;
}
