// The model of the deduced-form tests (tests/layout/deduced_forms.cpp, and
// nvcc_test.cpp with its nvcc unit forms.cu), and what each unit reports of
// it in plain types (no fluxion types cross between the units): a two-patch
// SIR with a contact matrix,
//
//   S'_p = -beta_p S_p sum_q C_pq I_q,   I'_p = beta_p S_p sum_q C_pq I_q - g I_p,   R'_p = g I_p,
//   incidence_p = g I_p,   total = sum_p R_p;
//
// states S[2], I[2], R[2]; parameters beta[2], C[2][2], g.
#pragma once
#include <fluxion/fluxion.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace deduced {

namespace fx = fluxion;

using patch = fx::index<"patch", 2>;
constexpr fx::state<"S", patch> S;
constexpr fx::state<"I", patch> I;
constexpr fx::state<"R", patch> R;
constexpr fx::param<"beta", patch> beta;
constexpr fx::param<"C", patch, patch> C;
constexpr fx::param<"g"> g;
constexpr fx::observable<"total"> total;
constexpr fx::ivar<patch, 0, "p"> p;
constexpr fx::ivar<patch, 1, "q"> q;
constexpr auto sir = fx::model(                                                  //
    fx::states(S, I, R), fx::params(beta, C, g),                                 //
    fx::d(S(p)) = -beta(p) * S(p) * fx::sum(q, C(p, q) * I(q)),                  //
    fx::d(I(p)) = beta(p) * S(p) * fx::sum(q, C(p, q) * I(q)) - g * I(p),        //
    fx::d(R(p)) = g * I(p),                                                      //
    fx::observe<"incidence">(p) = g * I(p),                                      //
    fx::observe<"total">() = fx::sum(p, R(p)));
using M = fx::compiled<sir, double>;
using MG = fx::compiled<sir, double, fx::group_major<patch>>;

// The buffers the views read: element j of a block holds base + j, and
// in the structure-of-arrays state batch (2 instances) element j of
// instance b holds 100 j + b.
inline constexpr double state_base = 10, param_base = 0.5, observable_base = 20;

struct report {
  // element_names of each block; the state block's again under group_major<patch>
  std::vector<std::string> state_names, param_names, observable_names, group_major_state_names;
  std::string table, json, json_omitted;  // layout_table, layout_json (elements listed, omitted)
  // Through views: I(1); I(1) of instance 1 of the SoA batch; C(1, 0); g();
  // total(); I(1) in the group-major state block.
  std::vector<double> views;
  std::string text_S_I, text_total_R;  // jacobian_text of dS/dI and d total/dR
  std::size_t nnz_x = 0, nnz_p = 0, nnz_obs_x = 0, nnz_obs_p = 0;  // jacobian_nnz (constant expressions)
  std::size_t nnz_x_at_run_time = 0;
  std::vector<int> row_ptr, col_idx;                // jacobian_pattern of x
  std::vector<int> static_row_ptr, static_col_idx;  // static_jacobian_pattern of x
  std::vector<std::string> blocks;                  // jacobian_blocks of x: "output input maps"
};

// The deduced forms, called in a non-template function: in nvcc's unit
// (forms.cu) and the host compiler's (forms.hpp included with DEDUCED_UNIT native).
namespace nvcc {
report deduced_forms();
}
namespace native {
report deduced_forms();
}

}  // namespace deduced
