// The deduced forms of the layout and sparsity functions, each called with
// the model as an argument in a non-template function, as a .cu file's main
// would (the forms with the model or a block as a template argument stop nvcc
// there). A unit defines DEDUCED_UNIT (nvcc or native) and includes this once.
#pragma once
#include <fluxion/layout/view.hpp>

#include "model.hpp"

#ifndef DEDUCED_UNIT
#  error "define DEDUCED_UNIT (nvcc or native) before including forms.hpp"
#endif

namespace deduced::DEDUCED_UNIT {

report deduced_forms() {
  const M m;
  const MG mg;
  report r;
  r.state_names = fx::element_names<fx::layout_block::state>(m);
  r.param_names = fx::element_names<fx::layout_block::param>(m);
  r.observable_names = fx::element_names<fx::layout_block::observable>(m);
  r.group_major_state_names = fx::element_names<fx::layout_block::state>(mg);
  r.table = fx::layout_table(m);
  r.json = fx::layout_json(m);
  r.json_omitted = fx::layout_json(m, fx::json_elements::omitted);

  double x[M::n_states], soa[M::n_states * 2], prm[M::n_params], y[M::n_observables];
  for (std::size_t j = 0; j < M::n_states; ++j) {
    x[j] = state_base + double(j);
    for (std::size_t b = 0; b < 2; ++b) soa[j * 2 + b] = 100.0 * double(j) + double(b);
  }
  for (std::size_t j = 0; j < M::n_params; ++j) prm[j] = param_base + double(j);
  for (std::size_t j = 0; j < M::n_observables; ++j) y[j] = observable_base + double(j);
  r.views = {fx::view(m, I, x)(1), fx::view(m, I, soa + 1, 2)(1), fx::view(m, C, prm)(1, 0), fx::view(m, g, prm)(),
             fx::view(m, total, y)(), fx::view(mg, I, x)(1)};

  r.text_S_I = fx::jacobian_text(m, S, I);
  r.text_total_R = fx::jacobian_text(m, total, R);

  constexpr std::size_t nnz_x = fx::jacobian_nnz<M::jacobian::x>(M{});
  constexpr std::size_t nnz_p = fx::jacobian_nnz<M::jacobian::p>(M{});
  constexpr std::size_t nnz_obs_x = fx::jacobian_nnz<M::jacobian::obs_x>(M{});
  constexpr std::size_t nnz_obs_p = fx::jacobian_nnz<M::jacobian::obs_p>(M{});
  r.nnz_x = nnz_x;
  r.nnz_p = nnz_p;
  r.nnz_obs_x = nnz_obs_x;
  r.nnz_obs_p = nnz_obs_p;
  r.nnz_x_at_run_time = fx::jacobian_nnz_at_run_time<M::jacobian::x>(m);
  const fx::csr_pattern pattern = fx::jacobian_pattern<M::jacobian::x>(m);
  r.row_ptr = pattern.row_ptr;
  r.col_idx = pattern.col_idx;
  constexpr auto fixed = fx::static_jacobian_pattern<M::jacobian::x>(M{});
  r.static_row_ptr.assign(fixed.row_ptr.begin(), fixed.row_ptr.end());
  r.static_col_idx.assign(fixed.col_idx.begin(), fixed.col_idx.begin() + fixed.nnz);
  constexpr auto blocks = fx::jacobian_blocks<M::jacobian::x>(M{});
  for (const auto& d : blocks)
    r.blocks.push_back(std::string(d.output) + " " + std::string(d.input) + " " + fx::index_map_text(d.maps[0]));
  return r;
}

}  // namespace deduced::DEDUCED_UNIT
