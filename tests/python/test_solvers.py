"""integrate and log_density from Python, on NumPy and (where a GPU is usable)
CuPy arrays: every method against a fine fixed-step RK4 of the hand
transcription (oracle.py), statuses and statistics as arrays, log-densities
against the oracle's, their gradients against central differences of the
values, and the refusals of bad problems and data."""
import functools

import numpy as np
import pytest

import oracle

SAVE = [0.5, 1.0, 2.0]


def ensemble(dtype, batch=5, seed=31):
    x, p = oracle.random_point(np.random.default_rng(seed), batch)
    return x.astype(dtype), p.astype(dtype)


@functools.lru_cache(maxsize=None)
def reference(dtype, batch=5, seed=31):
    """The oracle's trajectory from the ensemble rounded to dtype (computed once)."""
    x, p = ensemble(dtype, batch, seed)
    return oracle.integrate(x.astype(np.float64), p.astype(np.float64), SAVE[-1], SAVE)


@pytest.mark.parametrize("method", ["tsit5", "vern7", "rosenbrock23", "rodas5p"])
def test_integrate_every_method(fixture_module, backend, dtype, method):
    m = fixture_module
    x, p = ensemble(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-9
    r = m.integrate(backend.asarray(x, dtype), backend.asarray(p, dtype), t_span=(0.0, 2.0), save_times=SAVE,
                    method=method, rtol=tol, atol=tol)
    assert isinstance(r.saved, backend.array_type) and r.saved.dtype == dtype
    assert r.saved.shape == (5, len(SAVE), m.n_states) and r.final.shape == (5, m.n_states)
    assert r.status.dtype == np.int32 and r.status.shape == (5,)
    assert (backend.asnumpy(r.status) == 0).all(), backend.asnumpy(r.status)
    accepted = backend.asnumpy(r.stats["accepted"])
    assert accepted.shape == (5,) and (accepted > 0).all()
    if method.startswith("ros"):
        assert (backend.asnumpy(r.stats["jacobian_evaluations"]) > 0).all()
    saved_ref, final_ref = reference(dtype)
    # Rosenbrock23 is second order: it meets a tolerance loosely.
    limit = {"rosenbrock23": 1e-3 if dtype == np.float32 else 2e-5}.get(method, 2e-3 if dtype == np.float32 else 1e-7)
    err = np.abs(backend.asnumpy(r.saved) - saved_ref).max() / np.abs(saved_ref).max()
    assert err <= limit, "%s: relative error %.3g" % (method, err)
    np.testing.assert_array_equal(backend.asnumpy(r.saved)[:, -1, :], backend.asnumpy(r.final))


def test_integrate_statuses_and_problem_errors(fixture_module, backend, dtype):
    m = fixture_module
    x, p = ensemble(dtype, batch=3)
    xd, pd = backend.asarray(x, dtype), backend.asarray(p, dtype)
    r = m.integrate(xd, pd, t_span=(0.0, 2.0), max_steps=2)
    assert (backend.asnumpy(r.status) == 1).all() and m.status_names[1] == "max_steps"
    with pytest.raises(ValueError, match="method must be one of"):
        m.integrate(xd, pd, t_span=(0.0, 1.0), method="euler")
    with pytest.raises(ValueError, match="save time 1 .* lies outside the span"):
        m.integrate(xd, pd, t_span=(0.0, 1.0), save_times=[0.5, 2.0])
    with pytest.raises(ValueError, match="t_span must be a pair"):
        m.integrate(xd, pd, t_span=1.0)
    with pytest.raises(m.ProblemError, match="relative tolerance"):
        m.integrate(xd, pd, t_span=(0.0, 1.0), rtol=-1.0)
    with pytest.raises(ValueError, match="x0 has shape"):
        m.integrate(pd, pd, t_span=(0.0, 1.0))


# ---- log_density: the SEIR example (examples/python/seir_module.hpp) ----------

DAYS = [float(d) for d in range(1, 21)]
TRUTH = np.array([0.6, 0.25, 0.2, 0.3, 12.0])


@functools.lru_cache(maxsize=None)
def seir_case(dtype, batch=4, seed=51):
    """Initial states, parameters near the truth, counts from the truth (some
    days missing), and the oracle's log-densities, all computed once."""
    r = np.random.default_rng(seed)
    i0 = r.uniform(5, 20, batch)
    x0 = np.stack([1e5 - i0, np.zeros(batch), i0, np.zeros(batch)], axis=1).astype(dtype)
    p = (TRUTH * r.uniform(0.8, 1.2, (batch, 5))).astype(dtype)
    truth_path, _ = oracle.integrate(np.array([[1e5 - 10, 0, 10, 0]]), TRUTH[None, :], DAYS[-1], DAYS,
                                     steps_per_unit=50, f=oracle.seir_rhs)
    counts = np.round(TRUTH[3] * TRUTH[1] * truth_path[0, :, 1] * r.uniform(0.7, 1.3, len(DAYS)))
    mask = np.ones(len(DAYS), dtype=np.uint8)
    mask[[4, 9, 10]] = 0
    saved, _ = oracle.integrate(x0.astype(np.float64), p.astype(np.float64), DAYS[-1], DAYS, steps_per_unit=50,
                                f=oracle.seir_rhs)
    return x0, p, counts, mask, oracle.seir_log_density(saved, p.astype(np.float64), counts, mask)


def test_log_density_and_gradient(seir_module, backend, dtype):
    m = seir_module
    assert m.has_log_density
    x0, p, counts, mask, ref = seir_case(dtype)
    data = [{"values": counts, "mask": mask}]
    tol = 1e-6 if dtype == np.float32 else 1e-10
    xd, pd = backend.asarray(x0, dtype), backend.asarray(p, dtype)
    d = m.log_density(xd, pd, data=data, t_span=(0.0, DAYS[-1]), save_times=DAYS, rtol=tol, atol=tol)
    assert isinstance(d.value, backend.array_type) and d.value.dtype == dtype and d.value.shape == (4,)
    assert d.gradient.shape == (4, m.n_params + m.n_states)
    assert (backend.asnumpy(d.status) == 0).all()
    rel = 1e-4 if dtype == np.float32 else 1e-7
    assert np.abs(backend.asnumpy(d.value) - ref).max() <= rel * np.abs(ref).max()
    # The gradient against central differences of the float64 values.
    if dtype == np.float64:
        g = backend.asnumpy(d.gradient)
        for j in range(m.n_params + m.n_states):
            base = x0[0, j - m.n_params] if j >= m.n_params else p[0, j]
            step = 1e-6 * max(1.0, abs(float(base)))
            vals = []
            for sign in (1, -1):
                xx, pp = x0.copy(), p.copy()
                if j < m.n_params:
                    pp[:, j] += sign * step
                else:
                    xx[:, j - m.n_params] += sign * step
                vals.append(backend.asnumpy(m.log_density(backend.asarray(xx, dtype), backend.asarray(pp, dtype),
                                                          data=data, t_span=(0.0, DAYS[-1]), save_times=DAYS,
                                                          rtol=1e-12, atol=1e-12, gradient=False).value))
            fd = (vals[0] - vals[1]) / (2 * step)
            assert np.abs(g[:, j] - fd).max() <= 1e-5 * max(1.0, np.abs(fd).max()), (j, g[:, j], fd)
    # Without the gradient: the same values.
    v = m.log_density(xd, pd, data=data, t_span=(0.0, DAYS[-1]), save_times=DAYS, rtol=tol, atol=tol, gradient=False)
    assert v.gradient is None
    np.testing.assert_allclose(backend.asnumpy(v.value), backend.asnumpy(d.value),
                               rtol=1e-3 if dtype == np.float32 else 1e-8)
    if backend.name == "cupy":
        for policy in ("lanes", "adjoint"):
            w = m.log_density(xd, pd, data=data, t_span=(0.0, DAYS[-1]), save_times=DAYS, rtol=tol, atol=tol,
                              policy=policy)
            np.testing.assert_allclose(backend.asnumpy(w.value), backend.asnumpy(d.value),
                                       rtol=1e-4 if dtype == np.float32 else 1e-7)
            scale = np.abs(backend.asnumpy(d.gradient)).max()
            assert np.abs(backend.asnumpy(w.gradient) - backend.asnumpy(d.gradient)).max() <= (
                1e-2 if dtype == np.float32 else 1e-5) * scale, policy


def test_log_density_own_times(seir_module, backend, dtype):
    """A series at its own times (every third day, one missing), with no
    save times: its terms are the oracle's on those days, in the order of
    its data, and the value is theirs plus the priors."""
    m = seir_module
    x0, p, counts, mask, _ = seir_case(dtype)
    days = np.array(DAYS[2::3])
    seen = mask[2::3].copy()
    seen[1] = 0
    saved, _ = oracle.integrate(x0.astype(np.float64), p.astype(np.float64), DAYS[-1], list(days),
                                steps_per_unit=50, f=oracle.seir_rhs)
    want_terms = oracle.seir_terms(saved, p.astype(np.float64), counts[2::3], seen)
    want = oracle.seir_log_density(saved, p.astype(np.float64), counts[2::3], seen)
    tol = 1e-6 if dtype == np.float32 else 1e-10
    xd, pd = backend.asarray(x0, dtype), backend.asarray(p, dtype)
    data = [{"values": counts[2::3], "mask": seen, "times": days}]
    d = m.log_density(xd, pd, data=data, t_span=(0.0, DAYS[-1]), rtol=tol, atol=tol, terms="observations")
    rel = 1e-4 if dtype == np.float32 else 1e-7
    np.testing.assert_allclose(backend.asnumpy(d.value), want, rtol=rel)
    assert isinstance(d.observation_values, list) and len(d.observation_values) == 1
    got = d.observation_values[0]
    assert isinstance(got, backend.array_type) and got.shape == (len(x0), len(days))
    np.testing.assert_allclose(backend.asnumpy(got), want_terms, rtol=rel, atol=rel)
    # The same days as the problem's save times, without times of its own:
    # the same value and gradient.
    e = m.log_density(xd, pd, data=[{"values": counts[2::3], "mask": seen}], t_span=(0.0, DAYS[-1]),
                      save_times=days, rtol=tol, atol=tol)
    np.testing.assert_allclose(backend.asnumpy(d.value), backend.asnumpy(e.value), rtol=rel)
    np.testing.assert_allclose(backend.asnumpy(d.gradient), backend.asnumpy(e.gradient), rtol=1e-3, atol=1e-6)
    with pytest.raises(ValueError, match="strictly increasing"):
        m.log_density(xd, pd, data=[{"values": counts[:2], "times": [3.0, 2.0]}], t_span=(0.0, DAYS[-1]))
    with pytest.raises(ValueError, match=r"data\[0\]\['times'\] has 2 values but 'values' has 3"):
        m.log_density(xd, pd, data=[{"values": counts[:3], "times": [2.0, 3.0]}], t_span=(0.0, DAYS[-1]))


def seir_events():
    """A vaccination pulse (30% of S to R) on day 6.5 and 40 imported
    exposures on day 11 (a save day: read after them), as the module takes
    them and as the oracle applies them."""
    given = [{"time": 11.0, "state": "E", "add": 40.0},
             {"time": 6.5, "move": 0.3, "from": "S", "to": 3}]

    def pulse(x):
        x[:, 3] += 0.3 * x[:, 0]
        x[:, 0] *= 0.7
        return x

    def imports(x):
        x[:, 1] += 40.0
        return x
    return given, [(6.5, pulse), (11.0, imports)]


@pytest.mark.parametrize("method", ["tsit5", "rodas5p"])
def test_events_integrate_and_log_density(seir_module, backend, dtype, method):
    """Events at given times: the saved states and the log-density against
    the oracle integrated segment by segment with the events applied by hand;
    the gradient against central differences of the oracle's log-density."""
    m = seir_module
    x0, p, counts, mask, _ = seir_case(dtype)
    given, applied = seir_events()
    xd, pd = backend.asarray(x0, dtype), backend.asarray(p, dtype)
    tol = 1e-6 if dtype == np.float32 else 1e-10
    r = m.integrate(xd, pd, t_span=(0.0, DAYS[-1]), save_times=DAYS, method=method, rtol=tol, atol=tol,
                    events=given)
    assert (backend.asnumpy(r.status) == 0).all()
    want, _ = oracle.integrate_with_events(x0.astype(np.float64), p.astype(np.float64), DAYS[-1], DAYS, applied,
                                           steps_per_unit=50, f=oracle.seir_rhs)
    rel = 1e-4 if dtype == np.float32 else 1e-7
    np.testing.assert_allclose(backend.asnumpy(r.saved), want, rtol=rel, atol=rel * 1e5)
    if method != "tsit5":
        return
    d = m.log_density(xd, pd, data=[{"values": counts, "mask": mask}], t_span=(0.0, DAYS[-1]), save_times=DAYS,
                      rtol=tol, atol=tol, events=given)
    p64 = p.astype(np.float64)

    def value(x, q):
        saved, _ = oracle.integrate_with_events(x, q, DAYS[-1], DAYS, applied, steps_per_unit=50,
                                                f=oracle.seir_rhs)
        return oracle.seir_log_density(saved, q, counts, mask)
    np.testing.assert_allclose(backend.asnumpy(d.value), value(x0.astype(np.float64), p64), rtol=rel)
    if dtype == np.float32:
        return
    grad = backend.asnumpy(d.gradient)
    for j in range(5):
        h = 1e-6 * p64[:, j]
        up, down = p64.copy(), p64.copy()
        up[:, j] += h
        down[:, j] -= h
        fd = (value(x0.astype(np.float64), up) - value(x0.astype(np.float64), down)) / (2 * h)
        np.testing.assert_allclose(grad[:, j], fd, rtol=1e-5, atol=1e-6)


def test_crossings_stop_and_change(seir_module, backend, dtype):
    """A threshold stop where reported incidence first exceeds 10 a day: its
    time against the oracle's incidence on a fine grid (linear interpolation
    between grid points 0.01 days apart), the final state there, saves after it
    NaN; a change at the crossing instead (1000 added to R: incidence, still
    rising, crosses once) against the oracle integrated to that time,
    changed, and integrated on."""
    m = seir_module
    x0, p, _, _, _ = seir_case(dtype)
    xd, pd = backend.asarray(x0, dtype), backend.asarray(p, dtype)
    tol = 1e-6 if dtype == np.float32 else 1e-10
    grid = [0.01 * k for k in range(1, 2001)]
    fine, _ = oracle.integrate(x0.astype(np.float64), p.astype(np.float64), 20.0, grid, steps_per_unit=100,
                               f=oracle.seir_rhs)
    p64 = p.astype(np.float64)
    incidence = p64[:, None, 3] * p64[:, None, 1] * fine[:, :, 1]
    want = []
    for b in range(len(x0)):
        k = int(np.argmax(incidence[b] >= 10.0))
        assert k > 0
        a, c = incidence[b, k - 1], incidence[b, k]
        want.append(grid[k - 1] + 0.01 * (10.0 - a) / (c - a))
    want = np.array(want)
    r = m.integrate(xd, pd, t_span=(0.0, 20.0), save_times=[1.0, 20.0], rtol=tol, atol=tol,
                    crossings=[{"observable": "reported_incidence", "level": 10.0, "direction": "up"}])
    assert r.crossing_times.shape == (len(x0), 1)
    got = backend.asnumpy(r.crossing_times)[:, 0]
    np.testing.assert_allclose(got, want, atol=2e-3 if dtype == np.float32 else 1e-4)
    final = backend.asnumpy(r.final)
    np.testing.assert_allclose(p64[:, 3] * p64[:, 1] * final[:, 1], 10.0, rtol=1e-3 if dtype == np.float32 else 1e-7)
    assert np.isnan(backend.asnumpy(r.saved)[:, 1]).all() and not np.isnan(backend.asnumpy(r.saved)[:, 0]).any()
    # 1000 added to R at the crossing, the trajectory going on.
    r2 = m.integrate(xd, pd, t_span=(0.0, 20.0), save_times=[20.0], rtol=tol, atol=tol,
                     crossings=[{"observable": 0, "level": 10.0, "direction": "up", "state": "R", "add": 1000.0}])
    t2 = backend.asnumpy(r2.crossing_times)[:, 0]
    np.testing.assert_allclose(t2, got, rtol=1e-6)
    for b in range(len(x0)):
        def add_to_r(x):
            x[:, 3] += 1000.0
            return x
        one, _ = oracle.integrate_with_events(x0[b:b + 1].astype(np.float64), p64[b:b + 1], 20.0, [20.0],
                                              [(float(t2[b]), add_to_r)], steps_per_unit=50, f=oracle.seir_rhs)
        np.testing.assert_allclose(backend.asnumpy(r2.saved)[b, 0], one[0, 0], rtol=1e-4 if dtype == np.float32 else 1e-7)
    with pytest.raises(ValueError, match=r"crossings\[0\]: the model has no observable named 'deaths'"):
        m.integrate(xd, pd, t_span=(0.0, 20.0), crossings=[{"observable": "deaths", "level": 1.0}])
    with pytest.raises(ValueError, match="either stops the trajectory"):
        m.integrate(xd, pd, t_span=(0.0, 20.0),
                    crossings=[{"observable": 0, "level": 1.0, "stop": True, "state": "E", "add": 1.0}])


def test_events_refused(seir_module):
    m = seir_module
    x0, p, _, _, _ = seir_case(np.float64)
    with pytest.raises(ValueError, match=r"events\[0\]: the model has no state named 'Q'"):
        m.integrate(x0, p, t_span=(0.0, 5.0), events=[{"time": 1.0, "state": "Q", "add": 1.0}])
    with pytest.raises(ValueError, match=r"events\[0\] needs exactly one action"):
        m.integrate(x0, p, t_span=(0.0, 5.0), events=[{"time": 1.0, "state": "S", "add": 1.0, "set": 2.0}])
    with pytest.raises(ValueError, match="event 0 at time 9 lies outside the span"):
        m.integrate(x0, p, t_span=(0.0, 5.0), events=[{"time": 9.0, "state": "S", "add": 1.0}])
    with pytest.raises(ValueError, match="no parameter named 'dose'"):
        m.integrate(x0, p, t_span=(0.0, 5.0), events=[{"time": 1.0, "state": "S", "add_parameter": "dose"}])


@pytest.mark.parametrize("method", ["tsit5", "rodas5p"])
def test_inputs_from_data(seir_module, backend, dtype, method):
    """beta driven by a table (0.6 from before t0, 0.25 from day 8, 0.4 from
    day 14.5: a lockdown and its easing), the trajectories' own beta ignored:
    the saved states against the oracle integrated segment by segment with
    beta set by hand; the caller's parameters unchanged."""
    m = seir_module
    x0, p, _, _, _ = seir_case(dtype)
    times, values = [-5.0, 8.0, 14.5], [0.6, 0.25, 0.4]
    own = p.copy()
    own[:, 0] = 99.0  # never read: the table drives beta from t0 on
    xd, pd = backend.asarray(x0, dtype), backend.asarray(own, dtype)
    tol = 1e-6 if dtype == np.float32 else 1e-10
    r = m.integrate(xd, pd, t_span=(0.0, DAYS[-1]), save_times=DAYS, method=method, rtol=tol, atol=tol,
                    inputs=[{"parameter": "beta", "times": times, "values": values}])
    assert (backend.asnumpy(r.status) == 0).all()
    assert (backend.asnumpy(pd) == own).all()
    x, t, out, pending = x0.astype(np.float64), 0.0, [], list(DAYS)
    for k, end in enumerate([8.0, 14.5, DAYS[-1]]):
        q = p.astype(np.float64).copy()
        q[:, 0] = values[k]
        here = [s - t for s in pending if s < end]
        pending = [s for s in pending if s >= end]
        saved, x = oracle.integrate(x, q, end - t, here + [end - t], steps_per_unit=50, f=oracle.seir_rhs)
        out += [saved[:, j] for j in range(len(here))]
        t = end
    want = np.stack(out + [x for _ in pending], axis=1)
    rel = 1e-4 if dtype == np.float32 else 1e-7
    np.testing.assert_allclose(backend.asnumpy(r.saved), want, rtol=rel, atol=rel * 1e5)


def test_inputs_refused(seir_module):
    m = seir_module
    x0, p, _, _, _ = seir_case(np.float64)
    with pytest.raises(ValueError, match=r"inputs\[0\] must be \{'parameter', 'times', 'values'\}"):
        m.integrate(x0, p, t_span=(0.0, 5.0), inputs=[{"parameter": "beta", "times": [0.0]}])
    with pytest.raises(ValueError, match=r"inputs\[0\]: the model has no parameter named 'temperature'"):
        m.integrate(x0, p, t_span=(0.0, 5.0), inputs=[{"parameter": "temperature", "times": [0.0], "values": [1.0]}])
    with pytest.raises(ValueError, match=r"inputs\[0\]: .*times that do not increase at point 1"):
        m.integrate(x0, p, t_span=(0.0, 5.0), inputs=[{"parameter": "beta", "times": [0.0, 0.0], "values": [1, 2]}])
    with pytest.raises(ValueError, match="an input's table must start at or before t0"):
        m.integrate(x0, p, t_span=(0.0, 5.0), inputs=[{"parameter": "beta", "times": [1.0], "values": [0.5]}])
    # The SEIR's priors are on every parameter: a driven beta is data, not fitted.
    _, _, counts, mask, _ = seir_case(np.float64)
    with pytest.raises(ValueError, match="prior 0 is on parameter 0, which an input from data drives"):
        m.log_density(x0, p, data=[{"values": counts, "mask": mask}], t_span=(0.0, DAYS[-1]), save_times=DAYS,
                      inputs=[{"parameter": "beta", "times": [0.0], "values": [0.5]}])


def test_log_density_terms(seir_module, backend, dtype):
    """terms='observations': each day's term against the oracle's, and the
    series' sum, as arrays of the inputs' kind; terms='series': the sums alone."""
    m = seir_module
    x0, p, counts, mask, _ = seir_case(dtype)
    saved, _ = oracle.integrate(x0.astype(np.float64), p.astype(np.float64), DAYS[-1], DAYS, steps_per_unit=50,
                                f=oracle.seir_rhs)
    want = oracle.seir_terms(saved, p.astype(np.float64), counts, mask)
    tol = 1e-6 if dtype == np.float32 else 1e-10
    xd, pd = backend.asarray(x0, dtype), backend.asarray(p, dtype)
    span = dict(data=[{"values": counts, "mask": mask}], t_span=(0.0, DAYS[-1]), save_times=DAYS, rtol=tol, atol=tol)
    d = m.log_density(xd, pd, terms="observations", **span)
    for a, shape in ((d.observation_values, (len(x0), 1, len(DAYS))), (d.series_values, (len(x0), 1))):
        assert isinstance(a, backend.array_type) and a.dtype == dtype and a.shape == shape
    got = backend.asnumpy(d.observation_values)[:, 0, :]
    rel = 1e-4 if dtype == np.float32 else 1e-7
    np.testing.assert_allclose(got, want, rtol=rel, atol=rel)
    assert (got[:, mask == 0] == 0).all()
    np.testing.assert_allclose(backend.asnumpy(d.series_values)[:, 0], got.sum(axis=1), rtol=rel)
    s = m.log_density(xd, pd, terms="series", gradient=False, **span)
    assert s.observation_values is None
    np.testing.assert_allclose(backend.asnumpy(s.series_values), backend.asnumpy(d.series_values), rtol=rel)
    n = m.log_density(xd, pd, **span)
    assert n.series_values is None and n.observation_values is None
    with pytest.raises(ValueError, match="terms must be"):
        m.log_density(xd, pd, terms="all", **span)
    # stats=False: no statistics, the same value and gradient bit for bit.
    q = m.log_density(xd, pd, stats=False, **span)
    assert q.stats is None and isinstance(n.stats["accepted"], backend.array_type)
    for name in ("value", "gradient", "status"):
        np.testing.assert_array_equal(backend.asnumpy(getattr(q, name)), backend.asnumpy(getattr(n, name)))


def test_log_density_failures_and_data_errors(seir_module, backend, dtype):
    m = seir_module
    x0, p, counts, mask, _ = seir_case(dtype)
    xd, pd = backend.asarray(x0, dtype), backend.asarray(p, dtype)
    good = [{"values": counts, "mask": mask}]
    span = dict(t_span=(0.0, DAYS[-1]), save_times=DAYS)
    d = m.log_density(xd, pd, data=good, max_steps=2, **span)
    assert (backend.asnumpy(d.status) == 1).all()
    assert np.isneginf(backend.asnumpy(d.value)).all() and (backend.asnumpy(d.gradient) == 0).all()
    # Right-censored days ("more than 40"): finite, and a tuple of series is a sequence too.
    censored = (dict(values=np.minimum(counts, 40.0), mask=mask, censoring=2 * (counts > 40)),)
    c = m.log_density(xd, pd, data=censored, **span)
    assert np.isfinite(backend.asnumpy(c.value)).all()
    bad = [
        (ValueError, "the likelihood has 1 series but 2", good + good),
        (ValueError, r"data\[0\] has an unknown key 'value'", [{"value": counts}]),
        (ValueError, r"data\[0\]\['mask'\] has 2 values but 'values' has 20", [{"values": counts, "mask": [1, 1]}]),
        (ValueError, r"censoring.*must be 0", [{"values": counts, "censoring": [5] * len(DAYS)}]),
        (ValueError, r"data\[0\]\['mask'\]\[1\] must be 0 \(missing\) or 1", [{"values": counts, "mask": [1, 2] + [1] * 18}]),
        (ValueError, r"data\[0\]\['parameter_values'\] has 3 values", [{"values": counts, "parameter_values": [1, 2, 3]}]),
        (ValueError, r"no parameter of the series is fx::from_data",
         [{"values": counts, "mask": mask, "parameter_values": np.ones(len(DAYS))}]),
        (TypeError, r"data\[0\] must be a dict", [counts]),
        (TypeError, r"data must be a sequence", 5),
    ]
    for kind, pattern, data in bad:
        with pytest.raises(kind, match=pattern):
            m.log_density(xd, pd, data=data, **span)
    with pytest.raises(ValueError, match="explicit method"):
        m.log_density(xd, pd, data=good, method="rodas5p", **span)
    with pytest.raises(ValueError, match="time span must be finite"):
        m.log_density(xd, pd, data=good, t_span=(0.0, float("nan")), save_times=DAYS)
