#pragma once
// fluxion: hierarchical balance models written once as C++ expression
// templates, compiled into __host__ __device__ evaluators.
//
//   #include <fluxion/fluxion.hpp>
//   namespace fx = fluxion;
//
// Two headers are left out because they cost compile time that most
// translation units do not use: <fluxion/layout/view.hpp> (fx::view, a
// cuda::std::mdspan per symbol: libcu++'s mdspan adds about 0.8 s to a g++
// translation unit and 3 s to an nvcc one) and <fluxion/layout/introspect.hpp>
// (Boost.Hana sequences of a compiled model). Include them where used.
#include <fluxion/config/fixed_string.hpp>
#include <fluxion/config/macros.hpp>
#include <fluxion/config/version.hpp>
#include <fluxion/symbolic.hpp>
#include <fluxion/model.hpp>
#include <fluxion/layout/batch.hpp>
#include <fluxion/layout/block.hpp>
#include <fluxion/layout/check.hpp>
#include <fluxion/layout/describe.hpp>
#include <fluxion/layout/error.hpp>
#include <fluxion/layout/layout.hpp>
#include <fluxion/compile/compiled.hpp>
#include <fluxion/compile/sparsity.hpp>
#include <fluxion/compile/structure_map.hpp>
#include <fluxion/exec/host.hpp>
#include <fluxion/solve/host.hpp>
#include <fluxion/solve/sensitivity.hpp>
#include <fluxion/infer/censoring.hpp>
#include <fluxion/infer/data_check.hpp>
#include <fluxion/infer/densities.hpp>
#include <fluxion/infer/log_density.hpp>
#include <fluxion/infer/log_density_adjoint.hpp>
#include <fluxion/infer/philox.hpp>
#include <fluxion/infer/priors.hpp>
#include <fluxion/infer/samplers.hpp>
#include <fluxion/infer/transforms.hpp>
