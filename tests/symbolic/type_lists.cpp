// The type-list primitives of fluxion/detail/mp.hpp that every type-level
// layer builds on (index_of, at, filter, concat, unique, if_t), on lists
// with repeats, at both ends, empty and longer than one step of their
// implementations (eight lists or elements a step).
#include <cstddef>
#include <type_traits>

#include <catch2/catch_test_macros.hpp>

#include <fluxion/detail/mp.hpp>

namespace {

using fluxion::detail::type_list;
template <int N>
struct t {};
template <class T>
struct is_even;
template <int N>
struct is_even<t<N>> : std::bool_constant<N % 2 == 0> {};
template <class T>
struct never : std::false_type {};
template <class T>
struct always : std::true_type {};

// t<0> ... t<N-1>
template <class Seq>
struct ts_of;
template <int... N>
struct ts_of<std::integer_sequence<int, N...>> {
  using type = type_list<t<N>...>;
};
template <int N>
using ts = typename ts_of<std::make_integer_sequence<int, N>>::type;

namespace mp = fluxion::detail;

}  // namespace

TEST_CASE("index_of finds the first occurrence and answers the size when absent", "[mp]") {
  using L = type_list<t<3>, t<1>, t<3>, t<7>>;
  STATIC_CHECK(mp::index_of_v<L, t<3>> == 0);
  STATIC_CHECK(mp::index_of_v<L, t<1>> == 1);
  STATIC_CHECK(mp::index_of_v<L, t<7>> == 3);
  STATIC_CHECK(mp::index_of_v<L, t<2>> == 4);
  STATIC_CHECK(mp::index_of_v<type_list<>, t<2>> == 0);
  STATIC_CHECK(mp::index_of_v<ts<40>, t<39>> == 39);
  STATIC_CHECK(mp::index_of_v<type_list<int, const int, int&>, int&> == 2);
}

TEST_CASE("at returns the element at each position", "[mp]") {
  using L = type_list<t<3>, t<1>, t<3>, t<7>>;
  STATIC_CHECK(std::is_same_v<mp::at_t<L, 0>, t<3>>);
  STATIC_CHECK(std::is_same_v<mp::at_t<L, 1>, t<1>>);
  STATIC_CHECK(std::is_same_v<mp::at_t<L, 2>, t<3>>);
  STATIC_CHECK(std::is_same_v<mp::at_t<L, 3>, t<7>>);
  STATIC_CHECK(std::is_same_v<mp::at_t<ts<40>, 0>, t<0>>);
  STATIC_CHECK(std::is_same_v<mp::at_t<ts<40>, 39>, t<39>>);
  STATIC_CHECK(std::is_same_v<mp::at_t<type_list<const int, int&, int>, 1>, int&>);
}

TEST_CASE("filter keeps the elements its predicate accepts, in order, repeats included", "[mp]") {
  STATIC_CHECK(std::is_same_v<mp::filter_t<is_even, type_list<t<3>, t<2>, t<5>, t<2>, t<8>>>,
                              type_list<t<2>, t<2>, t<8>>>);
  STATIC_CHECK(std::is_same_v<mp::filter_t<is_even, type_list<t<0>>>, type_list<t<0>>>);
  STATIC_CHECK(std::is_same_v<mp::filter_t<is_even, type_list<t<1>>>, type_list<>>);
  STATIC_CHECK(std::is_same_v<mp::filter_t<never, ts<20>>, type_list<>>);
  STATIC_CHECK(std::is_same_v<mp::filter_t<always, ts<20>>, ts<20>>);
  STATIC_CHECK(std::is_same_v<mp::filter_t<always, type_list<>>, type_list<>>);
  using evens = mp::filter_t<is_even, ts<21>>;
  STATIC_CHECK(evens::size == 11);
  STATIC_CHECK(std::is_same_v<mp::at_t<evens, 0>, t<0>>);
  STATIC_CHECK(std::is_same_v<mp::at_t<evens, 10>, t<20>>);
}

TEST_CASE("concat joins any number of lists in order", "[mp]") {
  using A = type_list<t<1>, t<2>>;
  using B = type_list<t<3>>;
  using E = type_list<>;
  STATIC_CHECK(std::is_same_v<mp::concat_t<>, type_list<>>);
  STATIC_CHECK(std::is_same_v<mp::concat_t<A>, A>);
  STATIC_CHECK(std::is_same_v<mp::concat_t<A, B>, type_list<t<1>, t<2>, t<3>>>);
  STATIC_CHECK(std::is_same_v<mp::concat_t<E, B, A>, type_list<t<3>, t<1>, t<2>>>);
  STATIC_CHECK(std::is_same_v<mp::concat_t<B, B, B, B>, type_list<t<3>, t<3>, t<3>, t<3>>>);
  // Nine and seventeen lists: past one and two steps of eight.
  using nine = mp::concat_t<B, A, E, B, A, E, B, A, B>;
  STATIC_CHECK(std::is_same_v<nine, type_list<t<3>, t<1>, t<2>, t<3>, t<1>, t<2>, t<3>, t<1>, t<2>, t<3>>>);
  using seventeen = mp::concat_t<B, B, B, B, B, B, B, B, A, B, B, B, B, B, B, B, B>;
  STATIC_CHECK(seventeen::size == 18);
  STATIC_CHECK(std::is_same_v<mp::at_t<seventeen, 8>, t<1>>);
  STATIC_CHECK(std::is_same_v<mp::at_t<seventeen, 9>, t<2>>);
}

TEST_CASE("unique keeps first occurrences in order", "[mp]") {
  STATIC_CHECK(std::is_same_v<mp::unique_t<type_list<t<2>, t<1>, t<2>, t<3>, t<1>>>, type_list<t<2>, t<1>, t<3>>>);
  STATIC_CHECK(std::is_same_v<mp::unique_t<type_list<>>, type_list<>>);
  STATIC_CHECK(std::is_same_v<mp::unique_t<mp::concat_t<ts<12>, ts<12>>>, ts<12>>);
}

TEST_CASE("if_t picks the first type when true, the second when false", "[mp]") {
  STATIC_CHECK(std::is_same_v<mp::if_t<true, t<1>, t<2>>, t<1>>);
  STATIC_CHECK(std::is_same_v<mp::if_t<false, t<1>, t<2>>, t<2>>);
  STATIC_CHECK(std::is_same_v<mp::if_t<(1 > 2), int&, const int>, const int>);
  STATIC_CHECK(mp::same_type<int, int>);
  STATIC_CHECK(!mp::same_type<int, const int>);
}
