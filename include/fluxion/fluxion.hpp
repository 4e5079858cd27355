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
//
// <fluxion/core.hpp> is all of this but the host thread pool's thread type
// (<fluxion/exec/host_threads.hpp>, which reads <thread>); <fluxion/cuda.hpp>
// includes that one.
#include <fluxion/core.hpp>
#include <fluxion/exec/host_threads.hpp>
