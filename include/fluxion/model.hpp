#pragma once
// The model layer: symbols, statements, models and their validation.
#include <fluxion/model/model.hpp>
#include <fluxion/model/statements.hpp>
#include <fluxion/model/symbols.hpp>
#include <fluxion/model/traits.hpp>
