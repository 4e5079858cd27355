// The ODR pair (see odr_pair_test.cpp): what each of its two translation
// units exports, as plain functions (no fluxion types), so that the Catch2
// body, built by the host compiler, calls both. odr_pair.cu is built by nvcc,
// odr_pair.cpp by the host compiler; each runs its own compiler's fluxion::host.
#pragma once
#include <cstddef>

namespace odr_pair {

// The model of odr_model.hpp: x' = -a x, y' = a x - b y (states x, y;
// parameters a, b).
inline constexpr std::size_t n_states = 2, n_params = 2;

struct unit_report {
  const void* rhs_address;        // &fluxion::host::rhs<probe> (the batch form), as this unit links it
  const void* integrate_address;  // &fluxion::host::integrate<M, tsit5> (the ensemble_result form)
  std::size_t simd_bytes_used;    // fluxion::host::simd_bytes_used as this unit sees it
};

#define ODR_PAIR_UNIT_DECLARATIONS                                                                          \
  unit_report report();                                                                                     \
  /* d(state)/dt of `count` instances, structure-of-arrays buffers; returns the SIMD lane groups */         \
  /* that fluxion::host::rhs evaluated (0: one instance at a time). */                                      \
  std::size_t rhs(double t, std::size_t count, const double* x, const double* p, double* dx);               \
  /* Tsit5 from t = 0 to t1, structure-of-arrays buffers; true when every trajectory succeeded. */          \
  bool integrate(double t1, std::size_t count, const double* x0, const double* p, double* final_state);

namespace nvcc {
ODR_PAIR_UNIT_DECLARATIONS
}
namespace native {
ODR_PAIR_UNIT_DECLARATIONS
}

#undef ODR_PAIR_UNIT_DECLARATIONS

}  // namespace odr_pair
