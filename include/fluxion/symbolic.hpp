#pragma once
// The symbolic layer: expression nodes, index variables, lowering,
// simplification, differentiation and printing.
#include <fluxion/symbolic/diff.hpp>
#include <fluxion/symbolic/index.hpp>
#include <fluxion/symbolic/lower.hpp>
#include <fluxion/symbolic/node.hpp>
#include <fluxion/symbolic/print.hpp>
#include <fluxion/symbolic/simplify.hpp>
#include <fluxion/symbolic/structure.hpp>
#include <fluxion/symbolic/traverse.hpp>
