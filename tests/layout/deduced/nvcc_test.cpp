// The forms that take the model (or layout) as an argument, called in a
// non-template function of an nvcc unit (forms.cu), where the forms with the
// model or a block as a template argument stop nvcc ("'__T8' was not
// declared"). Checked here (host compiler; Catch2 is never built by nvcc)
// against values written out by hand and against the explicit forms as the
// host compiler builds them (checks.hpp).
#include <catch2/catch_test_macros.hpp>

#include "checks.hpp"

TEST_CASE("the deduced layout and sparsity forms compile in an nvcc unit and give the hand-written values") {
  deduced::check_report(deduced::nvcc::deduced_forms());
}

