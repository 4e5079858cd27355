// What every unit's deduced forms must give (host compiler only): the values
// written out by hand from the model's equations (model.hpp), and, for the
// text (table, JSON, derivative text, the blocks' index maps), the same
// functions' forms with the model or block as a template argument, built
// here by the host compiler.
#pragma once
#include <catch2/catch_test_macros.hpp>

#include <fluxion/layout/view.hpp>

#include <string>
#include <vector>

#include "model.hpp"

namespace deduced {

using names = std::vector<std::string>;

// The forms with the model or block as a template argument.
inline report explicit_forms() {
  report r;
  r.state_names = fx::element_names<M::layout::state>();
  r.param_names = fx::element_names<M::layout::param>();
  r.observable_names = fx::element_names<M::layout::observable>();
  r.group_major_state_names = fx::element_names<MG::layout::state>();
  r.table = fx::layout_table<M::layout>();
  r.json = fx::layout_json<M::layout>();
  r.json_omitted = fx::layout_json<M::layout>(fx::json_elements::omitted);
  r.text_S_I = fx::jacobian_text<M>(S, I);
  r.text_total_R = fx::jacobian_text<M>(total, R);
  r.nnz_x = fx::jacobian_nnz<M, M::jacobian::x>();
  r.nnz_p = fx::jacobian_nnz<M, M::jacobian::p>();
  r.nnz_obs_x = fx::jacobian_nnz<M, M::jacobian::obs_x>();
  r.nnz_obs_p = fx::jacobian_nnz<M, M::jacobian::obs_p>();
  r.nnz_x_at_run_time = fx::jacobian_nnz_at_run_time<M, M::jacobian::x>();
  const fx::csr_pattern pattern = fx::jacobian_pattern<M, M::jacobian::x>();
  r.row_ptr = pattern.row_ptr;
  r.col_idx = pattern.col_idx;
  constexpr auto fixed = fx::static_jacobian_pattern<M, M::jacobian::x>();
  r.static_row_ptr.assign(fixed.row_ptr.begin(), fixed.row_ptr.end());
  r.static_col_idx.assign(fixed.col_idx.begin(), fixed.col_idx.begin() + fixed.nnz);
  for (const auto& d : fx::jacobian_blocks<M, M::jacobian::x>())
    r.blocks.push_back(std::string(d.output) + " " + std::string(d.input) + " " + fx::index_map_text(d.maps[0]));
  return r;
}

// A unit's report against the hand-written values and the explicit forms.
inline void check_report(const report& got) {
  // Names in flat order: each symbol row-major, symbols in declaration order;
  // group-major: each patch's S, I, R together.
  CHECK(got.state_names == names{"S[0]", "S[1]", "I[0]", "I[1]", "R[0]", "R[1]"});
  CHECK(got.param_names == names{"beta[0]", "beta[1]", "C[0][0]", "C[0][1]", "C[1][0]", "C[1][1]", "g"});
  CHECK(got.observable_names == names{"incidence[0]", "incidence[1]", "total"});
  CHECK(got.group_major_state_names == names{"S[0]", "I[0]", "R[0]", "S[1]", "I[1]", "R[1]"});

  // I(1) is state 3, C(1, 0) parameter 4, g parameter 6, total observable 2;
  // group-major, I(1) is state 4.
  CHECK(got.views == std::vector<double>{state_base + 3, 301, param_base + 4, param_base + 6, observable_base + 2,
                                         state_base + 4});

  // J_x: row S_p has S_p, I_0, I_1; I_p the same; R_p has I_p (columns S0
  // S1 I0 I1 R0 R1 = 0..5).
  const std::vector<int> row_ptr{0, 3, 6, 9, 12, 13, 14};
  const std::vector<int> col_idx{0, 2, 3, 1, 2, 3, 0, 2, 3, 1, 2, 3, 2, 3};
  CHECK(got.nnz_x == 14);
  CHECK(got.nnz_x_at_run_time == 14);
  CHECK(got.row_ptr == row_ptr);
  CHECK(got.col_idx == col_idx);
  CHECK(got.static_row_ptr == row_ptr);
  CHECK(got.static_col_idx == col_idx);
  // J_p: S_p and I_p read beta_p, C_p0, C_p1, and I_p also g; R_p reads g.
  CHECK(got.nnz_p == 16);
  // incidence_p reads I_p, total R_0 and R_1; d obs / d p: incidence_p reads g.
  CHECK(got.nnz_obs_x == 4);
  CHECK(got.nnz_obs_p == 2);

  const report want = explicit_forms();
  CHECK(got.table == want.table);
  CHECK(got.json == want.json);
  CHECK(got.json_omitted == want.json_omitted);
  CHECK(got.json.find("{\"name\": \"C[1][0]\", \"offset\": 4}") != std::string::npos);
  CHECK(got.json_omitted.find("\"elements\"") == std::string::npos);
  CHECK(got.text_S_I == want.text_S_I);
  CHECK(got.text_total_R == want.text_total_R);
  CHECK(got.text_S_I.starts_with("d(S[p])/d(I["));
  CHECK(got.text_total_R.starts_with("d(total)/d(R["));
  // Blocks with a dependence, in layout order: S and I read S and I, R reads I.
  REQUIRE(got.blocks.size() == 5);
  CHECK(got.blocks == want.blocks);
  const names pairs{"S S", "S I", "I S", "I I", "R I"};
  for (std::size_t k = 0; k < pairs.size(); ++k) CHECK(got.blocks[k].starts_with(pairs[k] + " "));
}

}  // namespace deduced
