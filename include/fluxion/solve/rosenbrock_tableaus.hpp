#pragma once
// Rosenbrock (linearly implicit) methods for stiff problems, as tableaus.
//
// rosenbrock23: the L-stable 2(3) pair of L. F. Shampine and M. W. Reichelt,
//   "The MATLAB ODE Suite", SIAM J. Sci. Comput. 18 (1997) 1-22 (ode23s):
//   gamma = d = 1 / (2 + sqrt 2), e32 = 6 + sqrt 2, a 2nd-order solution with
//   a 3rd-order error estimate and the free 2nd-order interpolant.
// rodas5p: G. Steinebach, "Construction of Rosenbrock-Wanner method Rodas5P
//   and numerical benchmarks within the Julia Differential Equations
//   package", BIT Numerical Mathematics 63 (2023) 27: 8 stages, stiffly
//   accurate, order 5 with an embedded 4th-order estimate (the last stage)
//   and a 4th-order dense output; coefficients in the W-transformed form of
//   Hairer & Wanner (Solving ODEs II, IV.7: stages solve
//   (I / (gamma h) - J) k_i = f(t + c_i h, y + sum_j a_ij k_j)
//                             + sum_j (C_ij / h) k_j + h d_i df/dt),
//   as OrdinaryDiffEq's Rodas5PTableau prints them.
#include <fluxion/config/macros.hpp>

namespace fluxion {

struct rosenbrock23 {
  static constexpr int order = 2;
  static constexpr int error_order = 2;  // the controller's exponent is 1/3
  static constexpr double max_growth = 5.0;
  static constexpr double gamma = 0.29289321881345247559915563789515096071516406231153;  // 1 / (2 + sqrt 2)
  static constexpr double e32 = 7.4142135623730950488016887242096980785696718753769;    // 6 + sqrt 2
};

struct rodas5p {
  static constexpr int stages = 8;
  static constexpr int order = 5;
  static constexpr int error_order = 4;
  static constexpr double max_growth = 5.0;
  static constexpr double gamma = 0.21193756319429014;
  // a[i][j]: stage i evaluates f at y + sum_{j<i} a[i][j] k_j. Stages 6 and 7
  // (0-based) are the stiffly accurate continuation: y + ... + k_5 (+ k_6).
  static constexpr double a[stages][stages] = {
      {},
      {3.0},
      {2.849394379747939, 0.45842242204463923},
      {-6.954028509809101, 2.489845061869568, -10.358996098473584},
      {2.8029986275628964, 0.5072464736228206, -0.3988312541770524, -0.04721187230404641},
      {-7.502846399306121, 2.561846144803919, -11.627539656261098, -0.18268767659942256, 0.030198172008377946},
      {-7.502846399306121, 2.561846144803919, -11.627539656261098, -0.18268767659942256, 0.030198172008377946,
       1.0},
      {-7.502846399306121, 2.561846144803919, -11.627539656261098, -0.18268767659942256, 0.030198172008377946,
       1.0, 1.0},
  };
  static constexpr double C[stages][stages] = {
      {},
      {-14.155112264123755},
      {-17.97296035885952, -2.859693295451294},
      {147.12150275711716, -1.41221402718213, 71.68940251302358},
      {165.43517024871676, -0.4592823456491126, 42.90938336958603, -5.961986721573306},
      {24.854864614690072, -3.0009227002832186, 47.4931110020768, 5.5814197821558125, -0.6610691825249471},
      {30.91273214028599, -3.1208243349937974, 77.79954646070892, 34.28646028294783, -19.097331116725623,
       -28.087943162872662},
      {37.80277123390563, -3.2571969029072276, 112.26918849496327, 66.9347231244047, -40.06618937091002,
       -54.66780262877968, -9.48861652309627},
  };
  static constexpr double c[stages] = {0.0, 0.6358126895828704, 0.4095798393397535, 0.9769306725060716,
                                       0.4288403609558664, 1.0, 1.0, 1.0};
  static constexpr double d[stages] = {0.21193756319429014, -0.42387512638858027, -0.3384627126235924,
                                       1.8046452872882734, 2.325825639765069, 0.0, 0.0, 0.0};
  // The solution is y + sum of a[7][j] k_j + k_7 (every stage, weight 1 for
  // the last three); the error estimate is k_7.
  // Dense output: y(theta) = (1 - theta) y0 + theta (y1 + (1 - theta) (q1 + theta (q2 + theta q3))),
  // q_r = sum_j H[r][j] k_j.
  static constexpr double H[3][stages] = {
      {25.948786856663858, -2.5579724845846235, 10.433815404888879, -2.3679251022685204, 0.524948541321073,
       1.1241088310450404, 0.4272876194431874, -0.17202221070155493},
      {-9.91568850695171, -0.9689944594115154, 3.0438037242978453, -24.495224566215796, 20.176138334709044,
       15.98066361424651, -6.789040303419874, -6.710236069923372},
      {11.419903575922262, 2.8879645146136994, 72.92137995996029, 80.12511834622643, -52.072871366152654,
       -59.78993625266729, -0.15582684282751913, 4.883087185713722},
  };
};

}  // namespace fluxion
