// The forms of the layout, view, sparsity and introspection functions that
// take the model (or layout) as an argument, as the host compiler builds
// them: the same calls as the nvcc unit's (deduced/forms.hpp, checked by
// deduced/nvcc_test.cpp where CUDA builds), against values written out by
// hand and the forms with the model or block as a template argument
// (deduced/checks.hpp); then the layout-object forms and fx::introspect's
// deduction from a model.
#include <catch2/catch_test_macros.hpp>

#define DEDUCED_UNIT native
#include "deduced/forms.hpp"

#include <fluxion/layout/introspect.hpp>

#include <type_traits>

#include "deduced/checks.hpp"

namespace {

using namespace deduced;

TEST_CASE("the deduced layout and sparsity forms give the hand-written values (host compiler)") {
  check_report(native::deduced_forms());
}

TEST_CASE("the deduced forms take a layout object as well as a model") {
  const M::layout layout;
  CHECK(fx::element_names<fx::layout_block::param>(layout) == fx::element_names<M::layout::param>());
  CHECK(fx::element_names<fx::layout_block::state>(MG::layout{}) == fx::element_names<MG::layout::state>());
  CHECK(fx::layout_table(layout) == fx::layout_table<M::layout>());
  CHECK(fx::layout_json(layout, fx::json_elements::omitted) == fx::layout_json<M::layout>(fx::json_elements::omitted));
  double prm[M::n_params] = {0, 1, 2, 3, 4, 5, 6};
  CHECK(fx::view(layout, C, prm)(1, 1) == 5);
  CHECK(fx::view(layout, C, prm).data_handle() == fx::view<M::layout::param>(C, prm).data_handle());
}

TEST_CASE("fx::introspect deduces the model from a model object") {
  constexpr M m{};
  constexpr fx::introspect info(m);
  static_assert(std::is_same_v<std::remove_const_t<decltype(info)>, fx::introspect<M>>);
  static_assert(info.find<"g">().offset == 6);
  static_assert(info.find<"C">().offset_of(1, 0) == 4);
  using Info = std::remove_const_t<decltype(info)>;
  CHECK(Info::state_block::element_names() == names{"S[0]", "S[1]", "I[0]", "I[1]", "R[0]", "R[1]"});
  const fx::introspect group_major(MG{});
  static_assert(std::is_same_v<std::remove_const_t<decltype(group_major)>, fx::introspect<MG>>);
  CHECK(group_major.find<"I">().offset_of(1) == 4);
}

}  // namespace
