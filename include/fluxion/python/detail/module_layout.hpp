#pragma once
// The layout of a module's model from Python: the JSON export as a dict,
// the flat names of every block, and views that turn a flat batch into a
// dict of named, shaped arrays (B, *extents) without copying, and back.
//
//   m.layout()["state"]["symbols"][0]["name"]     # the JSON export
//   m.names("state")                             # ["S[0][0]", ...], flat order
//   v = m.views(x)                               # {"S": x[:, 0:32] as (B, 8, 4), ...}, views of x
//   x2 = m.flatten(v)                            # a new (B, n) array, the same values
//
// Binding unit only.
#include <string>

#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <fluxion/layout/describe.hpp>
#include <fluxion/python/detail/module.hpp>

// Hidden, as pybind11 is: the module's own symbols, never another module's.
#pragma GCC visibility push(hidden)

namespace fluxion::python {

namespace detail {

template <class Block>
py::list block_symbols() {
  py::list out;
  for (const auto& e : Block::entries()) {
    py::list shape, strides;
    for (std::size_t r = 0; r < e.rank; ++r) {
      shape.append(e.extents[r]);
      strides.append(e.strides[r]);
    }
    py::dict d;
    d["name"] = std::string(e.name);
    d["offset"] = e.offset;
    d["size"] = e.size;
    d["shape"] = py::tuple(shape);
    d["strides"] = py::tuple(strides);
    out.append(d);
  }
  return out;
}

// views() and flatten(), written in Python over the symbols' offsets and
// strides: they only slice and assign, which each array package does in
// its own way (as_strided for NumPy and CuPy, Tensor.as_strided).
inline constexpr const char* layout_python = R"PY(
def _package(a):
    top = type(a).__module__.split(".")[0]
    if top == "numpy":
        import numpy
        return numpy
    if top == "cupy":
        import cupy
        return cupy
    if top == "torch":
        return "torch"
    raise TypeError("views and flatten take NumPy, CuPy or PyTorch arrays, got %s.%s"
                    % (type(a).__module__, type(a).__qualname__))

def _block(block):
    if block not in _symbols:
        raise ValueError("block must be one of 'state', 'parameter', 'observable', got %r" % (block,))
    return _symbols[block]

def views(a, block="state"):
    """A dict of named views of the flat batch `a`, (B, n) or (n,), one a
    symbol of `block`, shaped (B, *extents) or (*extents): no copy is made,
    writing to a view writes to `a`."""
    symbols = _block(block)
    n = _sizes[block]
    xp = _package(a)
    if a.ndim not in (1, 2) or a.shape[-1] != n:
        raise ValueError("a has shape %s, expected (%d,) or (B, %d) for block '%s'" % (tuple(a.shape), n, n, block))
    out = {}
    for s in symbols:
        if xp == "torch":
            es = a.stride(-1)
            strides = tuple(es * st for st in s["strides"])
            shape = tuple(s["shape"])
            base = a.storage_offset() + s["offset"] * es
            if a.ndim == 2:
                shape, strides = (a.shape[0],) + shape, (a.stride(0),) + strides
            out[s["name"]] = a.as_strided(shape, strides, base)
        else:
            es = a.strides[-1]
            strides = tuple(es * st for st in s["strides"])
            shape = tuple(s["shape"])
            start = a[..., s["offset"]:]
            if a.ndim == 2:
                shape, strides = (a.shape[0],) + shape, (a.strides[0],) + strides
            out[s["name"]] = xp.lib.stride_tricks.as_strided(start, shape=shape, strides=strides)
    return out

def flatten(named, block="state"):
    """The flat batch (B, n) (or (n,)) of a dict of named arrays of `block`,
    one a symbol, each (B, *extents) or (*extents): a new array of the
    arrays' kind, device and dtype."""
    symbols = _block(block)
    names = [s["name"] for s in symbols]
    missing = [k for k in names if k not in named]
    extra = [k for k in named if k not in names]
    if missing or extra:
        raise ValueError("flatten(%s): missing %s, unknown %s" % (block, missing, extra))
    first = named[names[0]] if names else None
    if first is None:
        raise ValueError("block '%s' has no symbols" % block)
    xp = _package(first)
    rank0 = len(symbols[0]["shape"])
    batched = first.ndim == rank0 + 1
    dims = ((first.shape[0],) if batched else ()) + (_sizes[block],)
    if xp == "torch":
        import torch
        flat = torch.empty(dims, dtype=first.dtype, device=first.device)
    else:
        flat = xp.empty(dims, dtype=first.dtype)
    target = views(flat, block)
    for s in symbols:
        src = named[s["name"]]
        want = tuple(target[s["name"]].shape)
        if tuple(src.shape) != want:
            raise ValueError("%s has shape %s, expected %s" % (s["name"], tuple(src.shape), want))
        if type(src) is not type(first) or src.dtype != first.dtype:
            raise TypeError("%s is %s of %s, but %s is %s of %s: one kind and dtype"
                            % (s["name"], type(src).__name__, src.dtype, names[0], type(first).__name__, first.dtype))
        if xp == "torch":
            target[s["name"]].copy_(src)
        else:
            target[s["name"]][...] = src
    return flat
)PY";

}  // namespace detail

template <class Spec>
void define_layout(py::module_& m) {
  using L = typename Spec::template compiled<double>::layout;
  const std::string json = fluxion::layout_json<L>();
  m.def(
      "layout", [json]() { return py::module_::import("json").attr("loads")(json); },
      "The flat layout as a dict (the JSON export): every block's symbols with their offsets, extents, index "
      "spaces and strides, and every element's name and offset.");
  py::dict names, symbols, sizes;
  names["state"] = py::cast(fluxion::element_names<typename L::state>());
  names["parameter"] = py::cast(fluxion::element_names<typename L::param>());
  names["observable"] = py::cast(fluxion::element_names<typename L::observable>());
  symbols["state"] = detail::block_symbols<typename L::state>();
  symbols["parameter"] = detail::block_symbols<typename L::param>();
  symbols["observable"] = detail::block_symbols<typename L::observable>();
  sizes["state"] = L::n_states;
  sizes["parameter"] = L::n_params;
  sizes["observable"] = L::n_observables;
  m.attr("_symbols") = symbols;
  m.attr("_sizes") = sizes;
  m.def(
      "names",
      [names](const std::string& block) {
        if (!names.contains(block))
          throw py::value_error("block must be one of 'state', 'parameter', 'observable', got '" + block + "'");
        return names[block.c_str()];
      },
      py::arg("block") = "state", "The name of every element of a block ('S[3][2]', 'sigma'), in flat order.");
  py::exec(detail::layout_python, m.attr("__dict__"));
}

}  // namespace fluxion::python

#pragma GCC visibility pop
