#pragma once
// A data series as the caller gives it (series_data), when it is observed
// (its own times, or every save time), and the view the integration reads
// (series_view, host and device).
//
// By default a series has one value per save time of the problem. A series
// with its own times (series_data::times: sorted, in the problem's span) has
// one value, mask entry, number of trials and parameter value per time of
// its own: a serosurvey on three dates beside daily cases. The log-density
// then integrates with the union of the problem's save times and every
// series' times as its save times (observation_timeline), and a series over
// intervals accumulates between its own consecutive times, the first
// interval from t0. Each observation's term, when asked for, is in the order
// of the data: series 0's values, then series 1's (infer/buffers.hpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <fluxion/config/macros.hpp>
#include <fluxion/infer/censoring.hpp>
#include <fluxion/infer/data_error.hpp>

namespace fluxion {

// The data of one series, host memory: one value per save time, or per time
// of its own where `times` is given.
template <class T>
struct series_data {
  std::span<const observation<T>> values;
  std::span<const unsigned char> mask = {};  // empty: every value observed
  std::span<const T> trials = {};            // binomial families only
  std::span<const T> parameter_values = {};  // a slot given as fx::from_data: its value per observation
  std::span<const T> times = {};             // empty: the problem's save times; else the series' own
};

namespace detail {

// The data of one series as the integration reads them (host or device
// pointers), at save time s of the integration.
template <class T>
struct series_view {
  const observation<T>* values;
  const unsigned char* mask;  // null: every value observed
  const T* trials;            // null unless the family takes trials
  const T* parameter_values;  // null unless a slot is fx::from_data
  const std::int32_t* at = nullptr;       // per save time: the data index there, or -1; null: the save time's
  const std::int32_t* save_of = nullptr;  // per data index: its save time; null: the data index
  std::size_t first_term = 0;             // where the series' first observation's term goes

  // The series' data index at save time s, or -1 where it has no time there.
  FLUXION_HOST_DEVICE std::ptrdiff_t index(std::size_t s) const { return at ? at[s] : std::ptrdiff_t(s); }
  FLUXION_HOST_DEVICE bool observed(std::ptrdiff_t i) const { return !mask || mask[i] != 0; }
  // The save time of the series' time before data index i, or -1 for its
  // first (an interval then starts at t0).
  FLUXION_HOST_DEVICE std::ptrdiff_t previous_save(std::ptrdiff_t i) const {
    return i == 0 ? -1 : save_of ? std::ptrdiff_t(save_of[i - 1]) : i - 1;
  }
};

// When each series is observed, built on the host before any work. Without
// a series of its own times, nothing is built: the save times are the
// problem's and every view reads data index s at save time s.
template <class T>
struct observation_timeline {
  bool own_times = false;                // whether a series has its own times
  std::vector<T> save_times;             // own_times: the problem's and every series' times, merged
  std::vector<std::int32_t> maps;        // own_times: each series' `at` (a save time each), then its `save_of`
  std::vector<std::size_t> map_offset;   // own_times: where series k's maps start
  std::vector<std::size_t> first_term;   // series k's first term among the n_terms
  std::size_t n_terms = 0;               // observations over all series (the terms output's size)

  const std::int32_t* at(std::size_t k) const { return own_times ? maps.data() + map_offset[k] : nullptr; }
  const std::int32_t* save_of(std::size_t k) const {
    return own_times ? maps.data() + map_offset[k] + save_times.size() : nullptr;
  }
};

// The number of values series d has: one per save time, or per time of its own.
template <class T>
std::size_t series_length(const series_data<T>& d, std::size_t n_save) {
  return d.times.empty() ? n_save : d.times.size();
}

// The timeline of `data` for a problem saving at `save_times` (the series'
// own times checked first: log_density.hpp's series_checker).
template <class T>
observation_timeline<T> make_timeline(std::span<const T> save_times, std::span<const series_data<T>> data) {
  observation_timeline<T> tl;
  tl.first_term.resize(data.size());
  for (std::size_t k = 0; k < data.size(); ++k) {
    tl.own_times = tl.own_times || !data[k].times.empty();
    tl.first_term[k] = tl.n_terms;
    tl.n_terms += series_length(data[k], save_times.size());
  }
  if (!tl.own_times) return tl;
  tl.save_times.assign(save_times.begin(), save_times.end());
  for (const auto& d : data) tl.save_times.insert(tl.save_times.end(), d.times.begin(), d.times.end());
  std::sort(tl.save_times.begin(), tl.save_times.end());
  tl.save_times.erase(std::unique(tl.save_times.begin(), tl.save_times.end()), tl.save_times.end());
  const std::size_t n_save = tl.save_times.size();
  if (n_save > std::size_t(std::numeric_limits<std::int32_t>::max()))
    throw data_error("likelihood", data_error::no_index,
                     "the series' times and the save times make " + std::to_string(n_save) +
                         " save times, more than a 32-bit index holds");
  tl.map_offset.resize(data.size());
  for (std::size_t k = 0; k < data.size(); ++k) {
    const std::span<const T> times = data[k].times.empty() ? save_times : data[k].times;
    tl.map_offset[k] = tl.maps.size();
    tl.maps.resize(tl.maps.size() + n_save + times.size(), -1);
    std::int32_t* at = tl.maps.data() + tl.map_offset[k];
    std::int32_t* save_of = at + n_save;
    for (std::size_t i = 0; i < times.size(); ++i) {
      const std::size_t s = std::size_t(std::lower_bound(tl.save_times.begin(), tl.save_times.end(), times[i]) -
                                        tl.save_times.begin());
      at[s] = std::int32_t(i);
      save_of[i] = std::int32_t(s);
    }
  }
  return tl;
}

// The series' data as the integration on the host reads them (host
// pointers; at least one view, so that data() is never null).
template <class T>
std::vector<series_view<T>> host_series_views(std::span<const series_data<T>> data,
                                              const observation_timeline<T>& tl) {
  std::vector<series_view<T>> views(data.size() > 0 ? data.size() : 1);
  for (std::size_t k = 0; k < data.size(); ++k)
    views[k] = {data[k].values.data(),
                data[k].mask.empty() ? nullptr : data[k].mask.data(),
                data[k].trials.empty() ? nullptr : data[k].trials.data(),
                data[k].parameter_values.empty() ? nullptr : data[k].parameter_values.data(),
                tl.at(k),
                tl.save_of(k),
                tl.first_term[k]};
  return views;
}

}  // namespace detail

}  // namespace fluxion
