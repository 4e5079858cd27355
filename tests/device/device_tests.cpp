// Catch2 bodies of the eighteen device cases; the checks live in cases.cu. Each
// case SKIPs with its reason when no CUDA device is usable.
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include "cases.hpp"

namespace {
void report(const device_cases::result& r) {
  if (r.skipped) SKIP(r.reason);
  INFO(r.summary);
  for (const auto& f : r.failures) FAIL_CHECK(f);
  CHECK(r.failures.empty());
}
}  // namespace

TEMPLATE_TEST_CASE("a: the fixture on the device equals the host result", "[device]", float, double) {
  report(device_cases::fixture_device_equals_host<TestType>());
}
TEMPLATE_TEST_CASE("b: strided device states follow the flat layout", "[device]", float, double) {
  report(device_cases::strided_device_state<TestType>());
}
TEMPLATE_TEST_CASE("c: direct constants and native scalar time on the device", "[device]", float, double) {
  report(device_cases::constants_and_time<TestType>());
}
TEMPLATE_TEST_CASE("d: wrong device buffers are rejected before launch", "[device]", float, double) {
  report(device_cases::layout_errors_before_launch<TestType>());
}
TEMPLATE_TEST_CASE("e: Jacobians on the device equal host and finite differences", "[device]", float, double) {
  report(device_cases::jacobians_on_device<TestType>());
}
TEMPLATE_TEST_CASE("f: Jacobian launchers take spans and every batch form", "[device]", float, double) {
  report(device_cases::jacobian_launchers_spans_and_batches<TestType>());
}
TEMPLATE_TEST_CASE("g: ensembles integrated on the device equal the host", "[device]", float, double) {
  report(device_cases::ensembles_match_host<TestType>());
}
TEMPLATE_TEST_CASE("h: keyed draw streams on the device equal the host's bits", "[device]", float, double) {
  report(device_cases::draws_match_host<TestType>());
}
TEMPLATE_TEST_CASE("i: log-densities and gradients on the device equal the host's", "[device]", float, double) {
  report(device_cases::log_densities_match_host<TestType>());
}
