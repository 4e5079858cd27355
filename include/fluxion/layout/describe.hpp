#pragma once
// The layout as a printable table and as JSON, so that Python or any other
// tool can address the same flat buffers. Host only.
#include <cstdio>
#include <string>

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
template <class Block>
std::string json_block() {
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
  return s + "]}";
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

// The same for a layout object: `fx::layout_table(M::layout{})`. (nvcc's host
// code generation cannot spell some explicit template arguments that carry
// names; deduction avoids spelling them.)
template <class Layout>
std::string layout_table(Layout) {
  return layout_table<Layout>();
}

// The layout as JSON: {"addressing": ..., "state": {"size", "symbols": [{name,
// kind, offset, size, shape, strides, spaces}...]}, "parameter": ..., "observable": ...}.
template <class Layout>
std::string layout_json() {
  return std::string("{\"fluxion\": \"") + version_string +
         "\", \"addressing\": \"element (i...) of a symbol is at offset + sum(i[r] * strides[r])\", \"state\": " +
         detail::json_block<typename Layout::state>() + ", \"parameter\": " +
         detail::json_block<typename Layout::param>() + ", \"observable\": " +
         detail::json_block<typename Layout::observable>() + "}";
}

template <class Layout>
std::string layout_json(Layout) {
  return layout_json<Layout>();
}

}  // namespace fluxion
