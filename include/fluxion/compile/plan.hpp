#pragma once
// Evaluation plans: loop-invariant subexpressions evaluated once.
//
// An equation or alias over variables (p, k) is evaluated for every element
// of their spaces, and a reduction inside it for every element of its own
// variable too. A subexpression that does not depend on one of the variables
// in scope is recomputed for nothing: in Model A's
//
//     lambda[p] = beta[p] * sum(q, C[p, q] * sum(k, I[q, k]) / N[q])
//
// sum(k, I[q, k]) / N[q] depends on q only, yet is computed P times per q.
// The plan hoists such a subexpression into a hidden alias over its own free
// variables (here h[q] = sum(k, I[q, k]) / N[q]), evaluated once per element
// per call into scratch like a user's alias, and reads it in place:
//
//     lambda[p] = beta[p] * sum(q, C[p, q] * h[q])
//
// which is the loop a careful hand-written kernel has. Only subexpressions
// with work worth saving move (a reduction, a division, a transcendental
// function); reading a value or multiplying two stays in place.
//
// Products and quotients are regrouped so that the invariant factors form
// one subexpression: C[p, q] * s[q] / N[q] becomes C[p, q] * (s[q] / N[q]).
// Like any reassociation this may change the last bit of a result; the
// value is the same real number.
//
// Plans are a compile-layer matter: the model, its layout and its Jacobian
// pattern are those of the equations as written.
#include <cstddef>
#include <type_traits>
#include <utility>

#include <fluxion/compile/jacobian.hpp>
#include <fluxion/detail/mp.hpp>
#include <fluxion/model/symbols.hpp>
#include <fluxion/symbolic/children.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/ops.hpp>
#include <fluxion/symbolic/traverse.hpp>

namespace fluxion {

namespace detail {

// A hoisted subexpression: an alias over its free variables.
template <class Body, class Vars>
using hoisted_alias = alias_symbol<"(hoisted)", Body, Vars>;

template <class Sym, class Vars>
struct ref_over;
template <class Sym, class... V>
struct ref_over<Sym, type_list<V...>> {
  using type = ref<Sym, V...>;
};

// Whether evaluating E does work worth keeping out of a loop: a reduction,
// a division, a real or negative power, a function other than a sign change,
// or a node whose children do.
template <class E>
struct costly : node_traits<E>::template fold<any_t, child_test<costly>> {};
template <class Op, class A>
struct costly<unary<Op, A>>
    : std::bool_constant<!(std::is_same_v<Op, op::neg> || std::is_same_v<Op, op::abs> ||
                           std::is_same_v<Op, op::sign> || std::is_same_v<Op, op::lnot>) ||
                         costly<A>::value> {};
template <class Op, class A, class B>
struct costly<binary<Op, A, B>>
    : std::bool_constant<std::is_same_v<Op, op::div> || std::is_same_v<Op, op::pow> || costly<A>::value ||
                         costly<B>::value> {};
template <class A, int N>
struct costly<powi<A, N>> : std::bool_constant<(N < 0) || costly<A>::value> {};
template <class Op, class V, class A>
struct costly<reduce<Op, V, A>> : std::true_type {};

// Whether E is a truth value (a comparison, `&&`, `||`, `!`). Truth values
// are never hoisted themselves: scratch holds numbers of the evaluation's
// scalar type, and a condition read back from it would be a number where
// `where` needs a truth value (no `bool` of std::complex, no lane mask of
// SIMD lanes). Their costly operands are hoisted like any other.
template <class E>
struct truth_valued : std::false_type {};
template <class Op, class A, class B>
struct truth_valued<binary<Op, A, B>> : std::bool_constant<op::is_boolean_op<Op>> {};
template <class A>
struct truth_valued<unary<op::lnot, A>> : std::true_type {};

// Whether E is constant along some variable of Scope.
template <class E, class Scope>
struct invariant_in_scope;
template <class E, class... S>
struct invariant_in_scope<E, type_list<S...>>
    : std::bool_constant<(!contains_v<free_vars_t<E>, S> || ...)> {};

// The result of hoisting: the rewritten expression and the hidden aliases it
// reads, each after the aliases its own body reads.
template <class E, class Aliases>
struct hoisted_expr {
  using type = E;
  using aliases = Aliases;
};

// Chain: whether E, when it is a product or quotient rewritten in place,
// may be regrouped (false inside a product or quotient that was not: see
// rewrite<binary>).
template <class E, class Scope, bool Chain = true>
struct hoist;
template <class E, class Scope>
struct rewrite;
template <class Op, class A, class B, class Scope, bool Chain>
struct rewrite_binary;

// --- products and quotients as lists of factors ------------------------------------
template <class F, bool Inverse>
struct factor {
  using expr = F;
  static constexpr bool inverse = Inverse;
};
template <class E>
struct factors_of {
  using type = type_list<factor<E, false>>;
};
template <class L>
struct inverted;
template <class... F>
struct inverted<type_list<F...>> {
  using type = type_list<factor<typename F::expr, !F::inverse>...>;
};
template <class A, class B>
struct factors_of<binary<op::mul, A, B>> {
  using type = concat_t<typename factors_of<A>::type, typename factors_of<B>::type>;
};
template <class A, class B>
struct factors_of<binary<op::div, A, B>> {
  using type = concat_t<typename factors_of<A>::type, typename inverted<typename factors_of<B>::type>::type>;
};

template <class F>
struct is_inverse : std::bool_constant<F::inverse> {};
template <class F>
struct is_direct : std::bool_constant<!F::inverse> {};

// Product of the factors' expressions, left to right (one when there are none).
template <class Acc, class L>
struct product_from {
  using type = Acc;
};
template <class Acc, class F, class... Fs>
struct product_from<Acc, type_list<F, Fs...>> {
  using type = typename product_from<binary<op::mul, Acc, typename F::expr>, type_list<Fs...>>::type;
};
template <class L>
struct product_expr {
  using type = one;
};
template <class F, class... Fs>
struct product_expr<type_list<F, Fs...>> {
  using type = typename product_from<typename F::expr, type_list<Fs...>>::type;
};
template <class L>
using product_expr_t = typename product_expr<L>::type;

// Numerator over denominator: n, n / d, or 1 / d.
template <class L>
struct quotient_expr {
  using num = product_expr_t<filter_t<is_direct, L>>;
  using dens = filter_t<is_inverse, L>;
  using den = product_expr_t<dens>;  // product_expr reads expressions only
  using type = if_t<dens::size == 0, num, binary<op::div, num, den>>;
};

// Splits a product's factors by whether they depend on V.
template <class V>
struct depends_on {
  template <class F>
  struct test : std::bool_constant<contains_v<free_vars_t<typename F::expr>, V>> {};
  template <class F>
  struct not_test : std::bool_constant<!test<F>::value> {};
};

template <class F>
struct factor_costly : std::bool_constant<F::inverse || costly<typename F::expr>::value> {};

template <class L, class V>
struct regrouping {
  using invariant = filter_t<depends_on<V>::template not_test, L>;
  using variant = filter_t<depends_on<V>::template test, L>;
  // Worth it when the invariant part is more than one plain factor (a single
  // costly factor is found in place anyway) and does work. Checked in order
  // (std::conjunction): the later filters only where the sizes allow.
  struct both : std::bool_constant<variant::size != 0 && invariant::size != 0> {};
  struct several : std::bool_constant<(invariant::size > 1) || filter_t<is_inverse, invariant>::size != 0> {};
  struct does_work : std::bool_constant<filter_t<factor_costly, invariant>::size != 0> {};
  static constexpr bool worth = std::conjunction_v<both, several, does_work>;
};

// The first variable of Scope along which regrouping L pays (void: none);
// the variables after it are not examined.
template <class L, class Scope>
struct first_regrouping_var {
  using type = void;
};
template <class L, class S, class... Ss>
struct first_regrouping_var<L, type_list<S, Ss...>> {
  static constexpr auto pick() {
    if constexpr (regrouping<L, S>::worth) return type_identity<S>{};
    else return type_identity<typename first_regrouping_var<L, type_list<Ss...>>::type>{};
  }
  using type = typename decltype(pick())::type;
};

// Each factor hoisted on its own, then the product rebuilt.
template <class L, class Scope>
struct hoist_factors;
template <class... F, class Scope>
struct hoist_factors<type_list<F...>, Scope> {
  using type = type_list<factor<typename hoist<typename F::expr, Scope>::type, F::inverse>...>;
  using aliases = concat_t<typename hoist<typename F::expr, Scope>::aliases...>;
};

template <class E, class Scope>
struct rewrite_chain {
  using factors = typename factors_of<E>::type;
  using V = typename first_regrouping_var<factors, Scope>::type;
  static constexpr auto pick() {
    if constexpr (std::is_void_v<V>) {
      return type_identity<void>{};
    } else {
      using group = regrouping<factors, V>;
      using inner = hoist<typename quotient_expr<typename group::invariant>::type, Scope>;
      using rest = hoist_factors<typename group::variant, Scope>;
      using rest_num = filter_t<is_direct, typename rest::type>;
      using rest_den = filter_t<is_inverse, typename rest::type>;
      using rebuilt = typename quotient_expr<
          concat_t<rest_num, type_list<factor<typename inner::type, false>>, rest_den>>::type;
      return type_identity<hoisted_expr<rebuilt, concat_t<typename inner::aliases, typename rest::aliases>>>{};
    }
  }
  using type = typename decltype(pick())::type;  // void: no regrouping pays
};

// --- index deltas kept out of hoisted subexpressions ----------------------------------
// A derivative's product carries Kronecker deltas of the entry's indices
// (-ktr[c] delta(c, j) delta(0, m) / pow(1 + X[c, 0] / Ks, 2) in the stage
// model): hoisted with them, it would be tabulated over the input's
// variables as well (45 values for the 3 that are not zero). The deltas
// stay where the product is read and the rest is hoisted over its own
// variables. A delta is 0 or 1, so a product by it that was 1 is unchanged
// to the bit, and one that was 0 is still 0 (for finite factors).
template <class F>
struct is_delta_factor : std::false_type {};
template <class I, class J>
struct is_delta_factor<factor<kdelta<I, J>, false>> : std::true_type {};
template <class F>
struct is_other_factor : std::bool_constant<!is_delta_factor<F>::value> {};

// E as deltas (direct factors) times the rest; no deltas for other nodes.
template <class E>
struct delta_split {
  using deltas = type_list<>;
  using rest = E;
};
template <class Op, class A, class B>
  requires(std::is_same_v<Op, op::mul> || std::is_same_v<Op, op::div>)
struct delta_split<binary<Op, A, B>> {
  using factors = typename factors_of<binary<Op, A, B>>::type;
  using deltas = filter_t<is_delta_factor, factors>;
  using rest = typename quotient_expr<filter_t<is_other_factor, factors>>::type;
};
template <class A>
struct delta_split<unary<op::neg, A>> {
  using deltas = typename delta_split<A>::deltas;
  using rest = unary<op::neg, typename delta_split<A>::rest>;
};

// --- rewriting the children of a node -------------------------------------------------
// Each child hoisted in the same scope (leaves stay as they are), but for
// products, quotients and reductions (below).
template <class Scope>
struct hoisted_in {
  template <class C>
  using fn = typename hoist<C, Scope>::type;
};
template <class Scope>
struct aliases_hoisted_in {
  template <class C>
  using fn = typename hoist<C, Scope>::aliases;
};
template <class E, class Scope>
struct rewrite {
  using type = typename node_traits<E>::template map<hoisted_in<Scope>>;
  using aliases = typename node_traits<E>::template fold<concat_t, aliases_hoisted_in<Scope>>;
};
// Products and quotients only: rewrite_chain (factor lists, their filters
// by variable) is not instantiated for sums, comparisons and the rest. Where
// a product or quotient is not regrouped, neither is a product or quotient
// among the factors it keeps as they are, in the same scope: both operands
// of a product, a quotient's numerator. Their factors are some of the
// whole's with the same inversion, so for every variable their variant and
// invariant factors are subsets of the whole's and regrouping them pays only
// where regrouping the whole would. Those operands are rewritten with Chain
// false and their factor lists are never formed. A denominator's factors
// are inverted in the whole's list (A / (x / y) holds y uninverted), so a
// denominator is rewritten as a chain of its own.
template <class Op, class A, class B, class Scope, bool Chain>
struct rewrite_binary {
  static constexpr bool chain = std::is_same_v<Op, op::mul> || std::is_same_v<Op, op::div>;
  static constexpr auto each() {
    using a = hoist<A, Scope, !chain>;
    using b = hoist<B, Scope, !std::is_same_v<Op, op::mul>>;
    return hoisted_expr<binary<Op, typename a::type, typename b::type>,
                        concat_t<typename a::aliases, typename b::aliases>>{};
  }
  static constexpr auto pick() {
    if constexpr (chain && Chain) {
      if constexpr (!std::is_void_v<typename rewrite_chain<binary<Op, A, B>, Scope>::type>)
        return typename rewrite_chain<binary<Op, A, B>, Scope>::type{};
      else
        return each();
    } else {
      return each();
    }
  }
  using type = typename decltype(pick())::type;
  using aliases = typename decltype(pick())::aliases;
};
template <class Op, class A, class B, class Scope>
struct rewrite<binary<Op, A, B>, Scope> : rewrite_binary<Op, A, B, Scope, true> {};
// A reduction's child is evaluated with its variable bound too.
template <class Op, class V, class A, class Scope>
struct rewrite<reduce<Op, V, A>, Scope> {
  using a = hoist<A, concat_t<Scope, type_list<V>>>;
  using type = reduce<Op, V, typename a::type>;
  using aliases = typename a::aliases;
};

// E rewritten in Scope; a product or quotient not regrouped where !Chain.
template <class E, class Scope, bool Chain>
struct rewrite_in : rewrite<E, Scope> {};
template <class Op, class A, class B, class Scope>
struct rewrite_in<binary<Op, A, B>, Scope, false> : rewrite_binary<Op, A, B, Scope, false> {};
// Largest hidden alias a plan creates, in elements (scratch lives in
// registers or thread-local memory on the device). Hidden aliases are as
// large as the spaces of the subexpression's own variables, which for a
// subexpression hoisted out of a P x P loop is P.
inline constexpr std::size_t max_hoisted_elements = 4096;

// E, evaluated where the variables of Scope are bound: when it is costly and
// constant along one of them, rewritten in the scope of its own variables
// and, if that still leaves work, moved into a hidden alias; else rewritten
// inside.
template <class E, class Scope, bool Chain>
struct hoist {
  // A subexpression that does no costly work is left as it is (nothing in
  // it is hoisted or regrouped: regrouping needs a costly or inverted
  // factor). Checked in order through std::conjunction: the free variables
  // of E (invariant_in_scope) are computed only for costly nodes.
  static constexpr auto pick() {
    if constexpr (!costly<E>::value) {
      return hoisted_expr<E, type_list<>>{};
    } else if constexpr (delta_split<E>::deltas::size != 0) {
      using rest = hoist<typename delta_split<E>::rest, Scope, Chain>;
      using deltas = typename delta_split<E>::deltas;
      return hoisted_expr<product_expr_t<concat_t<deltas, type_list<factor<typename rest::type, false>>>>,
                          typename rest::aliases>{};
    } else if constexpr (std::conjunction_v<std::negation<truth_valued<E>>, invariant_in_scope<E, Scope>>) {
      using vars = free_vars_t<E>;
      using body = rewrite<E, vars>;
      if constexpr (costly<typename body::type>::value && spaces_of_vars<vars>::size <= max_hoisted_elements) {
        using H = hoisted_alias<typename body::type, vars>;
        return hoisted_expr<typename ref_over<H, vars>::type, concat_t<typename body::aliases, type_list<H>>>{};
      } else {
        return hoisted_expr<typename body::type, typename body::aliases>{};
      }
    } else {
      return hoisted_expr<typename rewrite_in<E, Scope, Chain>::type, typename rewrite_in<E, Scope, Chain>::aliases>{};
    }
  }
  using type = typename decltype(pick())::type;
  using aliases = typename decltype(pick())::aliases;
};

// --- plans ------------------------------------------------------------------------------

// One loop of an evaluation: Rhs written to Sym[Vars...] for every element.
template <class Sym, class Vars, class Rhs>
struct step {
  using symbol = Sym;
  using vars = Vars;
  using rhs = Rhs;
};

template <class A>
struct step_of_alias {
  using type = step<A, typename A::vars, typename symbol_expansion<A>::body>;
};

// A step with its right-hand side hoisted: the hidden aliases' steps, then it.
template <class S>
struct planned_step {
  using h = hoist<typename S::rhs, typename S::vars>;
  using type = step<typename S::symbol, typename S::vars, typename h::type>;
  using hidden = transform_t<step_of_alias, typename h::aliases>;
};

template <class Ss>
struct planned_steps;
template <class... S>
struct planned_steps<type_list<S...>> {
  // Each hidden step just before the step that reads it.
  using with_hidden = concat_t<concat_t<typename planned_step<S>::hidden, type_list<typename planned_step<S>::type>>...>;
  using hidden = concat_t<typename planned_step<S>::hidden...>;
  using steps = type_list<typename planned_step<S>::type...>;
};

template <class S>
struct symbol_of_step {
  using type = typename S::symbol;
};

// --- deferring a step into the output loop ------------------------------------------

// Whether E reads symbol A at all.
template <class E, class A>
struct mentions : node_traits<E>::template fold<any_t, child_test<mentions, A>> {};
template <class Sym, class... I, class A>
struct mentions<ref<Sym, I...>, A> : std::is_same<Sym, A> {};

// Whether E reads step S's symbol only at the element being written
// (S[vars of S], with none of those variables rebound by a reduction or a
// stage shift around the read).
template <class E, class S>
struct reads_own_element : node_traits<E>::template fold<all_t, child_test<reads_own_element, S>> {};
template <class Sym, class... I, class S>
struct reads_own_element<ref<Sym, I...>, S>
    : std::bool_constant<!std::is_same_v<Sym, typename S::symbol> ||
                         std::is_same_v<type_list<I...>, typename S::vars>> {};
template <rebinding_node E, class S>
struct reads_own_element<E, S>
    : std::bool_constant<contains_v<typename S::vars, typename node_traits<E>::var>
                             ? !mentions<E, typename S::symbol>::value
                             : node_traits<E>::template fold<all_t, child_test<reads_own_element, S>>::value> {};

template <class Prefix, class L>
struct is_prefix : std::false_type {};
template <class... A, class... B>
  requires(sizeof...(A) <= sizeof...(B))
struct is_prefix<type_list<A...>, type_list<B...>> {
  template <std::size_t... K>
  static constexpr bool test(std::index_sequence<K...>) {
    return (std::is_same_v<A, at_t<type_list<B...>, K>> && ...);
  }
  static constexpr bool value = test(std::index_sequence_for<A...>{});
};

// A scratch step can be evaluated inside the output loop, once per element
// of the loop's leading variables, when the outputs share one loop whose
// leading variables are the step's, no other step reads it, and the outputs
// read it only at the element being written. Its value is then computed just
// before its first use and dies soon after (fewer live registers on a GPU)
// instead of living through the whole evaluation.
//
// The conditions are checked in order, each only when the ones before it
// hold (std::conjunction instantiates no further): the last two walk every
// equation and every step once per scratch step, which for a model of many
// equations is a large part of its compile time (a third of cicc's time for
// the rhs of bench/compile_scaling/vector_host.hpp, whose outputs do not even
// share one loop). Where the outputs do not share one loop nothing is
// deferred and none of it is instantiated (split_steps below).
template <class Steps, class Eqs, class Shape>
struct deferrable {
  template <class S>
  struct test {
    template <class Other>
    struct reads_it : mentions<typename Other::rhs, typename S::symbol> {};
    template <class Eq>
    struct own : reads_own_element<typename Eq::rhs, S> {};
    struct unread_by_steps : std::bool_constant<filter_t<reads_it, Steps>::size == 0> {};
    struct read_own_by_outputs : std::bool_constant<filter_t<own, Eqs>::size == Eqs::size> {};
    static constexpr bool value =
        std::conjunction<is_prefix<typename S::vars, Shape>, unread_by_steps, read_own_by_outputs>::value;
  };
  template <class S>
  struct not_test : std::bool_constant<!test<S>::value> {};
};

// Scratch steps split into those evaluated before the outputs (early) and
// those deferred into the outputs' one loop Shape (void: no one loop, so
// none are deferred).
template <class Steps, class Eqs, class Shape>
struct split_steps {
  using deferred = filter_t<deferrable<Steps, Eqs, Shape>::template test, Steps>;
  using early = filter_t<deferrable<Steps, Eqs, Shape>::template not_test, Steps>;
};
template <class Steps, class Eqs>
struct split_steps<Steps, Eqs, void> {
  using deferred = type_list<>;
  using early = Steps;
};

template <class L>
struct single_or_void {
  using type = void;
};
template <class X>
struct single_or_void<type_list<X>> {
  using type = X;
};

template <class Eq>
struct vars_of_step {
  using type = typename Eq::vars;
};

// The plan for evaluating Eqs (each with symbol, vars, rhs) after Aliases
// (in dependency order):
//   scratch_steps   aliases and hidden aliases, in evaluation order
//   scratch_symbols what the scratch block holds
//   equations       the equations as they are evaluated
//   early_steps, deferred_steps
//                   scratch_steps split: evaluated before the outputs, or
//                   inside their loop (output_shape: the outputs' one loop)
template <class Aliases, class Eqs>
struct evaluation_plan {
  using alias_plan = planned_steps<transform_t<step_of_alias, Aliases>>;
  using equation_plan = planned_steps<Eqs>;
  using scratch_steps = unique_t<concat_t<typename alias_plan::with_hidden, typename equation_plan::hidden>>;
  using scratch_symbols = transform_t<symbol_of_step, scratch_steps>;
  using equations = typename equation_plan::steps;

  using shapes = unique_t<transform_t<vars_of_step, equations>>;
  using output_shape = typename single_or_void<shapes>::type;
  using deferred_steps = typename split_steps<scratch_steps, equations, output_shape>::deferred;
  using early_steps = typename split_steps<scratch_steps, equations, output_shape>::early;
};

// The plan for the entries of a Jacobian: each block derivative d(Eq)/d(Y)
// hoisted in the scope of one entry (the output element's and the input
// element's variables), so that what depends on the column alone (1 / N[j]
// in Model A) is computed once per column, not once per entry. Extends the
// scratch of Base (the plan of the equations' values). As a walk's Values
// policy it hands the hoisted derivative to the sinks; structural zeros are
// still read from the derivative itself.
template <class Base, class Eqs, class Ys>
struct jacobian_plan {
  template <class Eq, class Y>
  using hoisted = hoist<block_derivative<Eq, Y>, concat_t<typename Eq::vars, typename wrt<Y>::vars>>;
  template <class Eq, class Y>
  using value = typename hoisted<Eq, Y>::type;

 private:
  template <class Eq, class L>
  struct hidden_of_row;
  template <class Eq, class... Y>
  struct hidden_of_row<Eq, type_list<Y...>> {
    using type = concat_t<transform_t<step_of_alias, typename hoisted<Eq, Y>::aliases>...>;
  };
  template <class L>
  struct hidden_of;
  template <class... Eq>
  struct hidden_of<type_list<Eq...>> {
    using type = concat_t<typename hidden_of_row<Eq, Ys>::type...>;
  };

 public:
  using scratch_steps = unique_t<concat_t<typename Base::scratch_steps, typename hidden_of<Eqs>::type>>;
  using scratch_symbols = transform_t<symbol_of_step, scratch_steps>;
};

}  // namespace detail

}  // namespace fluxion
