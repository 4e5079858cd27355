#pragma once
// The MPI layer (optional: the system MPI's mpi.h, linked with its library;
// Meson's dependency fluxion-mpi). docs/distributed.md is its guide.
//
//   fx::mpi::integrate, fx::mpi::log_density   a global batch across the ranks of a communicator
//   fx::mpi::gather, fx::mpi::reduce           results to one rank; totals on every rank
//   fx::mpi::owned_range, owner_of             which trajectories a rank owns
//   fx::mpi::distribution                      the static split or the dynamic schedule
//   fx::mpi::device_for                        which GPU a rank uses (mpi/cuda.hpp sets it)
#include <fluxion/mpi/agree.hpp>
#include <fluxion/mpi/communicator.hpp>
#include <fluxion/mpi/device_map.hpp>
#include <fluxion/mpi/error.hpp>
#include <fluxion/mpi/exact_sum.hpp>
#include <fluxion/mpi/integrate.hpp>
#include <fluxion/mpi/log_density.hpp>
#include <fluxion/mpi/range.hpp>
#include <fluxion/mpi/reduce.hpp>
#include <fluxion/mpi/schedule.hpp>
