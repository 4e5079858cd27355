#pragma once
// Ensembles integrated on the host in SIMD lanes: W = lanes<T>::width
// trajectories advance together, one per lane, each at its own time with its
// own step size, accepting or rejecting its own steps. A step is attempted
// in all lanes at once (the right-hand side through compiled::rhs_lanes with
// a time per lane; for Rosenbrock methods also the Jacobian through
// compiled::jacobian_dense_lanes and the iteration matrix factored lane by
// lane with dense_lu over lanes); the decisions that follow an attempt are
// made lane by lane. A lane whose trajectory ends (success or not) takes the
// next trajectory of the range, so lanes stay busy until the range runs dry.
// Host only (fx::host::integrate uses it for methods that qualify, see
// lane_integrable); nvcc translation units integrate one trajectory at a time.
//
// Each trajectory follows the algorithm of one trajectory alone, decision
// for decision and operation for operation, written once:
//   solve/values.hpp, lane_values.hpp    the value type a step computes with:
//                                        T alone, lanes<T, W> here
//   solve/explicit_rk.hpp, rosenbrock.hpp   each method's step over that type
//                                        (stages, new state, error, dense output)
//   solve/error_norm.hpp                 the error norm over that type
//   solve/dense_lu.hpp, lane_lu.hpp      the iteration matrix's LU; a pivot per lane
//   solve/step_control.hpp               the step control (HNW I, II.4)
//   solve/saved_states.hpp               save times and where saved states go
//   solve/lane_steps.hpp                 what the lanes add to a method's step
//   solve/lane_ensemble.hpp              the lanes' ensemble (lane_ensemble)
// so a trajectory's result does not depend on which lane or which
// neighbours it had (tests/solve/lanes.cpp: bit for bit).
#include <fluxion/solve/lane_ensemble.hpp>
#include <fluxion/solve/lane_steps.hpp>
