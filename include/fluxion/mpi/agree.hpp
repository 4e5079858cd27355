#pragma once
// Agreement on failures: a check that fails on any rank raises the same
// error (same type, same message) on every rank, before any rank starts
// work.
//
//   detail::agree(comm, [&] { /* this rank's checks: they may throw */ });
//
// Every rank runs its checks; one MPI_Allreduce (MPI_MIN) of the failing
// ranks' numbers finds the first rank that failed (the lowest number), which
// broadcasts its error: its type (fluxion::layout_error, data_error,
// problem_error, fluxion::mpi::device_error, std::invalid_argument), its
// message and the fields those types carry (a layout_error's block,
// expected and actual values, a data_error's series and time index). Every
// rank then throws that error: the first failing rank its own exception,
// the others one rebuilt from the broadcast, equal to it field by field. An
// error of any other type (std::bad_alloc, a std::runtime_error) becomes a
// fluxion::mpi::rank_error naming that rank and its message, on every rank
// (that rank included). No rank failing costs the one MPI_Allreduce.
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include <fluxion/infer/data_error.hpp>
#include <fluxion/layout/error.hpp>
#include <fluxion/mpi/communicator.hpp>
#include <fluxion/mpi/error.hpp>
#include <fluxion/solve/problem.hpp>

namespace fluxion::mpi::detail {

enum class error_kind : std::int32_t { layout = 1, data, problem, device, invalid_argument, other };

struct error_record {
  error_kind kind = error_kind::other;
  std::string message;
  std::string name;  // a layout_error's block, a data_error's series
  std::uint64_t a = 0, b = 0;  // expected and actual; a data_error's index
};

inline error_record record_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const data_error& x) {
    return {error_kind::data, x.what(), x.series(), x.index(), 0};
  } catch (const layout_error& x) {
    return {error_kind::layout, x.what(), x.block(), x.expected(), x.actual()};
  } catch (const problem_error& x) {
    return {error_kind::problem, x.what(), {}, 0, 0};
  } catch (const device_error& x) {
    return {error_kind::device, x.what(), {}, 0, 0};
  } catch (const std::invalid_argument& x) {
    return {error_kind::invalid_argument, x.what(), {}, 0, 0};
  } catch (const std::exception& x) {
    return {error_kind::other, x.what(), {}, 0, 0};
  } catch (...) {
    return {error_kind::other, "an exception that is not a std::exception", {}, 0, 0};
  }
}

// The text between `prefix` and the last `suffix_start` of `message` (the
// part a constructor was given), or the whole message where it does not
// have that shape.
inline std::string between(const std::string& message, const std::string& prefix, const std::string& suffix_start) {
  const std::size_t end = suffix_start.empty() ? message.size() : message.rfind(suffix_start);
  if (message.compare(0, prefix.size(), prefix) != 0 || end == std::string::npos || end < prefix.size())
    return message;
  return message.substr(prefix.size(), end - prefix.size());
}

[[noreturn]] inline void raise(const error_record& r, int rank) {
  switch (r.kind) {
    case error_kind::layout: {
      const std::string marker = " (expected ";
      const std::string what = between(r.message, "fluxion::layout_error: block '" + r.name + "': ", marker);
      // Strides are shown with their sign (layout_error::signed_values).
      const std::size_t at = r.message.rfind(marker);
      if (at != std::string::npos) {
        const char* e = r.message.c_str() + at + marker.size();
        const char* comma = std::strstr(e, ", actual ");
        if (comma != nullptr && (*e == '-' || comma[9] == '-'))
          throw layout_error(r.name, what, std::ptrdiff_t(std::strtoll(e, nullptr, 10)),
                             std::ptrdiff_t(std::strtoll(comma + 9, nullptr, 10)), layout_error::signed_values{});
      }
      throw layout_error(r.name, what, std::size_t(r.a), std::size_t(r.b));
    }
    case error_kind::data: {
      std::string prefix = "fluxion::data_error: series '" + r.name + "'";
      if (r.a != std::uint64_t(data_error::no_index)) prefix += " at time index " + std::to_string(r.a);
      throw data_error(r.name, std::size_t(r.a), between(r.message, prefix + ": ", ""));
    }
    case error_kind::problem: throw problem_error(r.message);
    case error_kind::device: throw device_error(r.message);
    case error_kind::invalid_argument: throw std::invalid_argument(r.message);
    default: throw rank_error(rank, r.message);
  }
}

inline void put(std::vector<char>& out, const void* p, std::size_t n) {
  out.insert(out.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
}
inline std::vector<char> bytes_of(const error_record& r) {
  std::vector<char> out;
  const std::int32_t kind = std::int32_t(r.kind);
  const std::uint64_t n1 = r.name.size(), n2 = r.message.size();
  put(out, &kind, sizeof kind);
  put(out, &r.a, sizeof r.a);
  put(out, &r.b, sizeof r.b);
  put(out, &n1, sizeof n1);
  put(out, r.name.data(), r.name.size());
  put(out, &n2, sizeof n2);
  put(out, r.message.data(), r.message.size());
  return out;
}
inline error_record record_from(const std::vector<char>& in) {
  error_record r;
  std::size_t at = 0;
  const auto get = [&](void* p, std::size_t n) {
    std::memcpy(p, in.data() + at, n);
    at += n;
  };
  std::int32_t kind = 0;
  std::uint64_t n = 0;
  get(&kind, sizeof kind);
  r.kind = error_kind(kind);
  get(&r.a, sizeof r.a);
  get(&r.b, sizeof r.b);
  get(&n, sizeof n);
  r.name.assign(in.data() + at, n);
  at += n;
  get(&n, sizeof n);
  r.message.assign(in.data() + at, n);
  return r;
}

// Every rank with its error (or none): every rank throws the first failing
// rank's, or all return.
inline void agree_on(MPI_Comm comm, const std::exception_ptr& mine) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  int first = mine ? rank : size;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == size) return;
  error_record r;
  std::vector<char> bytes;
  if (rank == first) {
    r = record_of(mine);
    bytes = bytes_of(r);
  }
  std::uint64_t length = bytes.size();
  check_mpi(MPI_Bcast(&length, 1, MPI_UINT64_T, first, comm), "MPI_Bcast");
  bytes.resize(std::size_t(length));
  check_mpi(MPI_Bcast(bytes.data(), int(length), MPI_CHAR, first, comm), "MPI_Bcast");
  if (rank == first && r.kind != error_kind::other) std::rethrow_exception(mine);
  raise(record_from(bytes), first);
}

// Runs `local` (this rank's checks) on every rank, then agrees (above).
template <class F>
void agree(MPI_Comm comm, F&& local) {
  std::exception_ptr mine;
  try {
    local();
  } catch (...) {
    mine = std::current_exception();
  }
  agree_on(comm, mine);
}

// The same values on every rank (the global count, the number of save
// times, the schedule, ...): a problem_error naming the first that differs,
// with its smallest and largest values, on every rank. A value that does not
// apply on a rank (applies = false: whether statistics are recorded, on a
// rank that owns no trajectory and whose empty buffers cannot say) takes
// the others'. Gives the values agreed on (0 where none applies). One
// MPI_Allreduce.
struct same_value {
  const char* what;
  std::uint64_t value;
  bool applies = true;
};
inline std::vector<std::uint64_t> check_same_everywhere(MPI_Comm comm, const std::vector<same_value>& values) {
  // The values, their complements and whether they apply: one MPI_MAX gives
  // both bounds, and whether any rank gave them.
  const std::size_t k = values.size();
  std::vector<std::uint64_t> v(3 * k, 0);
  for (std::size_t i = 0; i < k; ++i)
    if (values[i].applies) {
      v[i] = values[i].value;
      v[k + i] = ~values[i].value;
      v[2 * k + i] = 1;
    }
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_UINT64_T, MPI_MAX, comm), "MPI_Allreduce");
  std::vector<std::uint64_t> agreed(k, 0);
  agree(comm, [&] {
    for (std::size_t i = 0; i < k; ++i) {
      if (v[2 * k + i] == 0) continue;
      const std::uint64_t largest = v[i], smallest = ~v[k + i];
      if (largest != smallest)
        throw problem_error(std::string("fluxion::mpi: the ranks disagree on ") + values[i].what + " (from " +
                            std::to_string(smallest) + " to " + std::to_string(largest) +
                            "); every rank of the communicator must pass the same");
      agreed[i] = largest;
    }
  });
  return agreed;
}

}  // namespace fluxion::mpi::detail
