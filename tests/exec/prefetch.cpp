// spread_prefetch (exec/detail/prefetch.hpp): the lines it requests are
// exactly those that hold the spans it was given, and each step requests
// one slice of them. A request never faults and changes no result, so
// these counts are what can go wrong; the benchmark shows what they save.
#include <catch2/catch_test_macros.hpp>

#include <fluxion/exec/detail/prefetch.hpp>

namespace fh = fluxion::host::detail;

namespace {
alignas(64) char memory[2048];
}

TEST_CASE("spread_prefetch: the lines that hold each span", "[host][prefetch]") {
  fh::spread_prefetch a;
  a.add(memory, 64);  // one whole line
  CHECK(a.lines() == 1);
  a.add(memory + 60, 8);  // bytes 60..67: two lines
  CHECK(a.lines() == 3);
  a.add(memory, 640);  // a third span is not taken
  CHECK(a.lines() == 3);

  fh::spread_prefetch b;
  b.add(memory, 0);  // no bytes, no line
  CHECK(b.lines() == 0);
  b.add(memory + 63, 130);  // bytes 63..192: lines 0, 1, 2 and 3
  CHECK(b.lines() == 4);
  b.add(memory + 1, 1);
  CHECK(b.lines() == 5);
  CHECK(b.pending() == 5);
}

TEST_CASE("spread_prefetch: a slice a step, the rest at finish", "[host][prefetch]") {
  SECTION("ten lines in three slices: 4, 4, 2") {
    fh::spread_prefetch p;
    p.add(memory, 10 * 64);
    p.slice(3);
    p.step();
    CHECK(p.pending() == 6);
    p.step();
    CHECK(p.pending() == 2);
    p.step();
    CHECK(p.pending() == 0);
    p.step();  // nothing left: no request past the spans
    CHECK(p.pending() == 0);
  }
  SECTION("slices run on from one span into the next") {
    fh::spread_prefetch p;
    p.add(memory, 3 * 64);
    p.add(memory + 1024, 2 * 64);
    p.slice(2);  // 3 lines a step
    p.step();
    CHECK(p.pending() == 2);
    p.step();
    CHECK(p.pending() == 0);
  }
  SECTION("fewer steps than slices: finish requests the rest") {
    fh::spread_prefetch p;
    p.add(memory, 10 * 64);
    p.slice(4);  // 3 lines a step
    p.step();
    CHECK(p.pending() == 7);
    p.finish();
    CHECK(p.pending() == 0);
  }
  SECTION("no slices asked: one step requests everything") {
    fh::spread_prefetch p;
    p.add(memory, 5 * 64);
    p.slice(0);
    p.step();
    CHECK(p.pending() == 0);
  }
  SECTION("nothing added: steps and finish do nothing") {
    fh::spread_prefetch p;
    p.slice(8);
    p.step();
    p.finish();
    CHECK(p.lines() == 0);
    CHECK(p.pending() == 0);
  }
}
