#!/usr/bin/env python3
"""A measurement for the lowering redesign (docs/reference/performance.md, "Compile cost"):
prints a CUDA unit in which a synthetic model
of N nodes is a flat constexpr program (built by constexpr code from a seed,
as a library would build it from a model) evaluated by one device function
template instantiation per node (straight-line code after inlining).

  python3 bench/compile_scaling/flat_program_spike.py 2000 > /tmp/s.cu
  nvcc -std=c++20 -O3 -arch=sm_90 --time t.csv -c /tmp/s.cu -o /tmp/s.o

cicc's time grows faster than N (this VM: 5.6 s at 2,000 nodes, 24-38 s at
5,000): the cost is per device function instantiated, so a redesign that
instantiates one per node or per element does not reach 15 s.

  python3 bench/compile_scaling/flat_program_spike.py 5000 --plain > /tmp/p.cu

prints the same program written out as plain CUDA, one statement a node in
one kernel, no templates: what a build step that generates the device code
would hand nvcc (docs/reference/performance.md, "Compile cost"). This VM:
3.5 s of nvcc CPU at 5,000 nodes, against 46.6 s for the template form."""
import sys
N = int(sys.argv[1]); NX = 150; NP = 80; NOUT = 150


def plain():
    """The program of build() below (the same stream, the same choices),
    written out."""
    s = 12345
    mask = (1 << 64) - 1

    def nxt(m):
        nonlocal s
        s = (s * 6364136223846793005 + 1442695040888963407) & mask
        return (s >> 33) % m

    body = []
    for i in range(N):
        if i < 40 or nxt(10) < 3:
            t = nxt(3)
            a = nxt(NX if t == 0 else NP)
            v = 0.5 + nxt(100) / 64.0
            e = f"x[{a} * B]" if t == 0 else f"p[{a} * B]" if t == 1 else repr(v)
        else:
            t = nxt(100)
            w = lambda: i - 1 - nxt(i if i < 60 else 60)
            a, b, c = w(), w(), w()
            e = (f"r{a} * r{b}" if t < 30 else f"r{a} + r{b}" if t < 50 else f"r{a} - r{b}" if t < 65 else
                 f"r{a} / r{b}" if t < 75 else f"-r{a}" if t < 90 else f"exp(r{a} * 1e-3)" if t < 91 else
                 f"sin(r{a})" if t < 92 else f"(r{a} < r{b} ? 1.0 : 0.0)" if t < 96 else
                 f"(r{a} != 0.0 ? r{b} : r{c})")
        body.append(f"    const double r{i} = {e};")
    outs = [f"    out[{j} * B] = r{N - 1 - j * ((N - 60) // NOUT)};" for j in range(NOUT)]
    lines = "\n".join(body + outs)
    print(f"""#pragma nv_diag_suppress 177  // nodes no output reads: declared, never referenced
__global__ void kernel(long B, const double* __restrict__ x0, const double* __restrict__ p0,
                       double* __restrict__ out0) {{
  for (long b = blockIdx.x * long(blockDim.x) + threadIdx.x; b < B; b += long(gridDim.x) * blockDim.x) {{
    const double* x = x0 + b; const double* p = p0 + b; double* out = out0 + b;
{lines}
  }}
}}
void launch(long B, const double* x, const double* p, double* out) {{ kernel<<<1024, 128>>>(B, x, p, out); }}""")


if "--plain" in sys.argv[2:]:
    plain()
    sys.exit()
print(f"""#include <cstdint>
#include <utility>
enum class op : unsigned char {{ x, p, lit, add, sub, mul, div, neg, exp, sin, lt, where }};
struct node {{ op o; int a, b, c; double v; }};
constexpr int N = {N}, NX = {NX}, NP = {NP}, NOUT = {NOUT};
struct program {{ node n[N]; int out[NOUT]; }};
// Built by constexpr code (a linear congruential stream picks ops and operands),
// standing in for a lowering pass over a model.
constexpr program build() {{
  program g{{}};
  std::uint64_t s = 12345;
  auto next = [&s](int m) {{ s = s * 6364136223846793005ull + 1442695040888963407ull; return int((s >> 33) % std::uint64_t(m)); }};
  for (int i = 0; i < N; ++i) {{
    node& k = g.n[i];
    if (i < 40 || next(10) < 3) {{
      int t = next(3);
      k.o = t == 0 ? op::x : t == 1 ? op::p : op::lit; k.a = next(t == 0 ? NX : NP); k.v = 0.5 + next(100) / 64.0;
    }} else {{
      int t = next(100); int a = i - 1 - next(i < 60 ? i : 60), b = i - 1 - next(i < 60 ? i : 60), c = i - 1 - next(i < 60 ? i : 60);
      k.a = a; k.b = b; k.c = c;
      k.o = t < 30 ? op::mul : t < 50 ? op::add : t < 65 ? op::sub : t < 75 ? op::div : t < 90 ? op::neg : t < 91 ? op::exp : t < 92 ? op::sin : t < 96 ? op::lt : op::where;
    }}
  }}
  for (int j = 0; j < NOUT; ++j) g.out[j] = N - 1 - j * ((N - 60) / NOUT);
  return g;
}}
inline constexpr program P = build();

template <int I>
__device__ __forceinline__ void ev(const double* __restrict__ x, const double* __restrict__ p, double* r) {{
  constexpr node k = P.n[I];
  if constexpr (k.o == op::x) r[I] = x[k.a];
  else if constexpr (k.o == op::p) r[I] = p[k.a];
  else if constexpr (k.o == op::lit) r[I] = k.v;
  else if constexpr (k.o == op::add) r[I] = r[k.a] + r[k.b];
  else if constexpr (k.o == op::sub) r[I] = r[k.a] - r[k.b];
  else if constexpr (k.o == op::mul) r[I] = r[k.a] * r[k.b];
  else if constexpr (k.o == op::div) r[I] = r[k.a] / r[k.b];
  else if constexpr (k.o == op::neg) r[I] = -r[k.a];
  else if constexpr (k.o == op::exp) r[I] = exp(r[k.a] * 1e-3);
  else if constexpr (k.o == op::sin) r[I] = sin(r[k.a]);
  else if constexpr (k.o == op::lt) r[I] = r[k.a] < r[k.b] ? 1.0 : 0.0;
  else r[I] = r[k.a] != 0.0 ? r[k.b] : r[k.c];
}}
template <int... I>
__device__ __forceinline__ void run_all(std::integer_sequence<int, I...>, const double* x, const double* p, double* r) {{
  int dummy[] = {{(ev<I>(x, p, r), 0)...}}; (void)dummy;
}}
template <int J>
inline constexpr int out_at = P.out[J];
template <int... J>
__device__ __forceinline__ void store_all(std::integer_sequence<int, J...>, const double* r, double* out, long os) {{
  int dummy[] = {{((out[J * os] = r[out_at<J>]), 0)...}}; (void)dummy;
}}
__global__ void kernel(long B, const double* __restrict__ x, const double* __restrict__ p, double* __restrict__ out) {{
  for (long b = blockIdx.x * long(blockDim.x) + threadIdx.x; b < B; b += long(gridDim.x) * blockDim.x) {{
    double r[N];
    run_all(std::make_integer_sequence<int, N>{{}}, x + b, p + b, r);
    store_all(std::make_integer_sequence<int, NOUT>{{}}, r, out + b, B);
  }}
}}
void launch(long B, const double* x, const double* p, double* out) {{ kernel<<<1024, 128>>>(B, x, p, out); }}""")
