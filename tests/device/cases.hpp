#pragma once
// The eighteen device cases (nine checks, each in float and double), as plain
// host functions implemented in cases.cu (nvcc) and called from Catch2
// bodies compiled by the host compiler (device_tests.cpp), so that the test
// suite and fluxion-qualify run the same code.
#include <string>
#include <vector>

namespace device_cases {

struct result {
  bool skipped = false;
  std::string reason;                 // why it was skipped
  std::vector<std::string> failures;  // empty when the case passed
  std::string summary;                // one line of what was checked
};

// Empty when a CUDA device is usable, else why not.
std::string unavailable();

template <class T>
result fixture_device_equals_host();  // a: fixture on the device == host, in device memory, layout and shapes, inputs unchanged
template <class T>
result strided_device_state();        // b: SoA, pitched SoA and a state embedded in a padded record give the same values
template <class T>
result constants_and_time();          // c: literals, named constants and native scalar time
template <class T>
result layout_errors_before_launch(); // d: each wrong buffer rejected before launch, output untouched
template <class T>
result jacobians_on_device();         // e: Jacobian values on the device == host == finite differences
template <class T>
result jacobian_launchers_spans_and_batches();  // f: Jacobian launchers over spans == host; broadcast, pitched, strided batches alike
template <class T>
result ensembles_match_host();        // g: Tsit5, Rodas5P, Rosenbrock23 ensembles on the device == host (solve_cases.cu)
template <class T>
result draws_match_host();            // h: keyed Philox draw streams on the device == host, bit for bit (solve_cases.cu)
template <class T>
result log_densities_match_host();    // i: log-densities and gradients on the device == host (infer_cases.cu)

}  // namespace device_cases
