#pragma once
// Everything <fluxion/fluxion.hpp> declares, without the host thread pool's
// thread type (<fluxion/exec/host_threads.hpp>, which reads <thread>): what
// <fluxion/cuda.hpp> includes. A header that defines a model for both host
// and CUDA translation units can include this one; a unit that runs host
// batches, integrations or log-densities includes <fluxion/fluxion.hpp>
// (fluxion::host says so at compile time otherwise). <thread> costs an nvcc
// translation unit about a second (and <memory>, which only the host lanes'
// ensemble needs, is read by host compilers alone: solve/host.hpp).
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
