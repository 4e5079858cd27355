#pragma once
// The layout as a printable table and as JSON, so that Python or any other
// tool can address the same flat buffers, and the name of every element of a
// block ("S[3][2]", "sigma") at its flat offset. Host only.
#include <array>
#include <cstddef>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include <fluxion/config/version.hpp>
#include <fluxion/layout/block.hpp>

namespace fluxion {

namespace detail {
inline std::string shape_text(const layout_entry& e) {
  if (e.rank == 0) return "scalar";
  std::string s = "[";
  for (std::size_t r = 0; r < e.rank; ++r) {
    if (r) s += ", ";
    s += std::string(e.spaces[r]) + "=" + std::to_string(e.extents[r]);
  }
  return s + "]";
}
inline std::string strides_text(const layout_entry& e) {
  std::string s = "[";
  for (std::size_t r = 0; r < e.rank; ++r) s += (r ? ", " : "") + std::to_string(e.strides[r]);
  return s + "]";
}
// Left-aligned in `width` columns, and always followed by a space.
inline std::string pad(std::string s, std::size_t width) {
  s.append(s.size() < width ? width - s.size() : 1, ' ');
  return s;
}
template <class Block>
void table_rows(std::string& out, const char* block_name) {
  for (const auto& e : Block::entries()) {
    out += pad(block_name, 12) + pad(std::string(e.name), 14) + pad(std::to_string(e.offset), 8) +
           pad(std::to_string(e.size), 8) + pad(shape_text(e), 26) + strides_text(e) + "\n";
  }
}
inline std::string json_escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}
// Calls f(name, offset) for every element of the entry, row-major over its
// index (last index fastest); the offset is the element's flat offset in its
// block, offset + sum(i[r] * strides[r]), whatever the layout policy.
// (One loop for every caller: the callback is passed as a function pointer
// and a context, so that each caller instantiates only a small thunk.)
inline void for_each_named_element(const layout_entry& e, void (*f)(void*, const std::string&, std::size_t),
                                   void* context) {
  std::array<std::size_t, max_rank> i{};
  for (std::size_t n = 0; n < e.size; ++n) {
    std::string name(e.name);
    std::ptrdiff_t off = std::ptrdiff_t(e.offset);
    for (std::size_t r = 0; r < e.rank; ++r) {
      // Appended piece by piece: g++ 12 at -O3 warns falsely (-Wrestrict,
      // GCC bug 105329) on "[" + std::to_string(...).
      name += '[';
      name += std::to_string(i[r]);
      name += ']';
      off += std::ptrdiff_t(i[r]) * e.strides[r];
    }
    f(context, name, std::size_t(off));
    for (std::size_t r = e.rank; r-- > 0;) {  // next index, last fastest
      if (++i[r] < e.extents[r]) break;
      i[r] = 0;
    }
  }
}
template <class F>
void for_each_named_element(const layout_entry& e, F& f) {
  for_each_named_element(
      e, [](void* c, const std::string& name, std::size_t off) { (*static_cast<F*>(c))(name, off); },
      const_cast<void*>(static_cast<const void*>(&f)));
}
}  // namespace detail

// The name of every element of a block, at its flat offset: names[j] is the
// element at offset j, "S[3][2]" for element (3, 2) of S, "sigma" for a
// scalar (symbols' names, then one [i] per index space, in the symbol's
// order). For CSV headers or to bind names: `fx::element_names<M::layout::state>()`.
template <class Block>
std::vector<std::string> element_names() {
  std::vector<std::string> names(Block::size);
  auto put = [&](const std::string& name, std::size_t offset) { names[offset] = name; };
  for (const auto& e : Block::entries()) detail::for_each_named_element(e, put);
  return names;
}

// The same with the block named by value and the model (or its layout)
// deduced: `fx::element_names<fx::layout_block::state>(m)`. The form for a
// .cu file's non-template functions, where nvcc cannot spell the block type
// of the form above (see fluxion::layout_block).
template <layout_block B, class M>
std::vector<std::string> element_names(const M&) {
  return element_names<detail::block_of_t<M, B>>();
}

// Whether layout_json lists every element by name (a block's "elements"):
// a model with large shapes (a 1024 x 1024 matrix parameter) has millions.
enum class json_elements { listed, omitted };

namespace detail {
template <class Block>
std::string json_block(json_elements elements) {
  std::string s = "{\"size\": " + std::to_string(Block::size) + ", \"symbols\": [";
  bool first = true;
  for (const auto& e : Block::entries()) {
    s += first ? "" : ", ";
    first = false;
    s += "{\"name\": \"" + json_escape(e.name) + "\", \"kind\": \"" + std::string(e.kind) +
         "\", \"offset\": " + std::to_string(e.offset) + ", \"size\": " + std::to_string(e.size) + ", \"shape\": [";
    for (std::size_t r = 0; r < e.rank; ++r) s += (r ? ", " : "") + std::to_string(e.extents[r]);
    s += "], \"strides\": [";
    for (std::size_t r = 0; r < e.rank; ++r) s += (r ? ", " : "") + std::to_string(e.strides[r]);
    s += "], \"spaces\": [";
    for (std::size_t r = 0; r < e.rank; ++r) s += std::string(r ? ", " : "") + "\"" + json_escape(e.spaces[r]) + "\"";
    s += "]}";
  }
  s += "]";
  if (elements == json_elements::listed) {
    s += ", \"elements\": [";
    const auto names = element_names<Block>();
    for (std::size_t j = 0; j < names.size(); ++j)
      s += (j ? ", " : "") + std::string("{\"name\": \"") + json_escape(names[j]) + "\", \"offset\": " + std::to_string(j) + "}";
    s += "]";
  }
  return s + "}";
}
}  // namespace detail

// A table of every symbol: block, name, offset, size and shape.
template <class Layout>
std::string layout_table() {
  std::string out = detail::pad("block", 12) + detail::pad("symbol", 14) + detail::pad("offset", 8) +
                    detail::pad("size", 8) + detail::pad("shape", 26) + "strides\n";
  detail::table_rows<typename Layout::state>(out, "state");
  detail::table_rows<typename Layout::param>(out, "parameter");
  detail::table_rows<typename Layout::observable>(out, "observable");
  return out;
}

// The same for a compiled model, `fx::layout_table(m)`, or a layout object,
// `fx::layout_table(M::layout{})`. In a .cu file's non-template functions
// pass the model: nvcc's generated host code cannot spell a layout's type
// (its blocks carry the symbols' names), so that M::layout{} stops it there.
template <class M>
std::string layout_table(const M&) {
  return layout_table<detail::layout_of_t<M>>();
}

// The layout as JSON:
//
//   {"fluxion": version, "addressing": ...,
//    "state": {"size": n,
//              "symbols": [{name, kind, offset, size, shape, strides, spaces}...],
//              "elements": [{"name": "S[0][0]", "offset": 0}, ...]},
//    "parameter": ..., "observable": ...}
//
// A block's "elements" name every element in flat order (elements[j] has
// offset j; group-major state blocks included), so that Python can write
// `idx = {e["name"]: e["offset"] for e in doc["state"]["elements"]}`.
// json_elements::omitted leaves them out (the symbols' offsets and strides
// still address every element).
template <class Layout>
std::string layout_json(json_elements elements = json_elements::listed) {
  return std::string("{\"fluxion\": \"") + version_string +
         "\", \"addressing\": \"element (i...) of a symbol is at offset + sum(i[r] * strides[r])\", \"state\": " +
         detail::json_block<typename Layout::state>(elements) + ", \"parameter\": " +
         detail::json_block<typename Layout::param>(elements) + ", \"observable\": " +
         detail::json_block<typename Layout::observable>(elements) + "}";
}

// The same for a compiled model, `fx::layout_json(m)` (the form for .cu
// files, as layout_table(m)), or a layout object.
template <class M>
  requires(!std::is_same_v<M, json_elements>)
std::string layout_json(const M&, json_elements elements = json_elements::listed) {
  return layout_json<detail::layout_of_t<M>>(elements);
}

}  // namespace fluxion
