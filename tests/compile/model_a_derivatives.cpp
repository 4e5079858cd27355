// Model A (tests/support/model_a.hpp): the same derivative checks as the
// hierarchical fixture (central differences of the hand reference,
// complex step, float vs double, dense vs sparse, jvp, unchanged inputs),
// with the test bodies shared from fixture.cpp. The exact counts of the
// patterns, derived by hand from the model's structure, are in sparsity.cpp.
#define DERIV_PROBLEMS model_a_problem
#include "fixture.cpp"
