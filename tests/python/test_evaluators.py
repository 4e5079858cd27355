"""The contract of a compiled module from Python, on NumPy arrays and (where a
GPU is usable) CuPy arrays, in float32 and float64: results where the
inputs live, in their dtype and flat order; structured views; inputs never
written; the hierarchical fixture's values and exact derivatives against a
hand transcription (oracle.py) and finite differences; strided batches;
constants and time; refusals before anything is written."""
import numpy as np
import pytest

import oracle
from conftest import tolerance


def point(dtype, batch=6, seed=7):
    x, p = oracle.random_point(np.random.default_rng(seed), batch)
    return x.astype(dtype), p.astype(dtype)


def close(actual, expected, dtype, scale=None):
    """max |actual - expected| within the dtype's tolerance of the scale."""
    expected = np.asarray(expected, dtype=np.float64)
    actual = np.asarray(actual, dtype=np.float64)
    s = np.abs(expected).max() if scale is None else scale
    err = np.abs(actual - expected).max() / max(s, 1e-300)
    assert err <= tolerance(dtype), "relative error %.3g above %.3g" % (err, tolerance(dtype))


def test_one_module_serves_numpy_and_gpu_arrays(fixture_module, backend, dtype):
    m = fixture_module
    x, p = point(dtype)
    on_host = m.rhs(0.25, x, p)
    here = m.rhs(0.25, backend.asarray(x, dtype), backend.asarray(p, dtype))
    assert type(on_host) is np.ndarray
    assert isinstance(here, backend.array_type)
    # The same model compiled once: the same values on either device (the
    # device may contract multiply-adds differently: a few ulps).
    close(backend.asnumpy(here), on_host, dtype)


def test_results_live_where_the_inputs_do(fixture_module, backend, dtype):
    m = fixture_module
    x, p = point(dtype)
    xd, pd = backend.asarray(x, dtype), backend.asarray(p, dtype)
    for name, n in [("rhs", m.n_states), ("observe", m.n_observables)]:
        y = getattr(m, name)(1.0, xd, pd)
        assert isinstance(y, backend.array_type), name
        assert y.dtype == dtype and y.shape == (x.shape[0], n)
        if backend.name == "cupy":
            assert y.device.id == xd.device.id
    # Flat order: column j of the result is element j of the layout.
    assert m.names("state") == oracle.state_names()
    assert m.names("parameter") == oracle.param_names()
    lay = m.layout()
    assert [s["name"] for s in lay["state"]["symbols"]] == ["X", "F"]
    assert lay["state"]["symbols"][1]["offset"] == oracle.F0
    close(backend.asnumpy(m.rhs(1.0, xd, pd)), oracle.rhs(1.0, x.astype(np.float64), p.astype(np.float64)), dtype)
    close(backend.asnumpy(m.observe(1.0, xd, pd)), oracle.observe(1.0, x.astype(np.float64), p), dtype)
    # One instance: (n,) in, (n,) out.
    one = m.rhs(1.0, xd[0], pd[0])
    assert one.shape == (m.n_states,) and isinstance(one, backend.array_type)


def test_structured_views_without_copies(fixture_module, backend, dtype):
    m = fixture_module
    x, p = point(dtype, batch=5)
    xd = backend.asarray(x, dtype)
    v = m.views(xd)
    assert v["X"].shape == (5, oracle.L, oracle.H, oracle.S) and v["F"].shape == (5, oracle.L, oracle.H)
    assert isinstance(v["X"], backend.array_type)
    # Views: writing through them writes the batch.
    v["F"][2, 1, 0] = 42.0
    assert float(backend.asnumpy(xd)[2, oracle.F0 + 1 * oracle.H + 0]) == 42.0
    back = m.flatten(v)
    assert isinstance(back, backend.array_type) and back.dtype == dtype
    np.testing.assert_array_equal(backend.asnumpy(back), backend.asnumpy(xd))
    # Named results: X[l][h][s] of the rhs is the oracle's at (l, h, s).
    dx = m.rhs(0.0, xd, backend.asarray(p, dtype))
    ref = oracle.rhs(0.0, backend.asnumpy(xd).astype(np.float64), p.astype(np.float64))
    named = m.views(dx)["X"]
    for (l, h, s) in [(0, 0, 0), (1, 1, 2), (0, 1, 1)]:
        close(backend.asnumpy(named[:, l, h, s]), ref[:, (l * oracle.H + h) * oracle.S + s], dtype, np.abs(ref).max())
    pv = m.views(backend.asarray(p, dtype), "parameter")
    assert pv["D"].shape == (5, oracle.H, oracle.H) and pv["r"].shape == (5,)
    with pytest.raises(ValueError, match="block"):
        m.views(xd, "states")


def test_inputs_are_never_written(fixture_module, backend, dtype):
    m = fixture_module
    x, p = point(dtype)
    xd, pd = backend.asarray(x, dtype), backend.asarray(p, dtype)
    v = backend.asarray(np.linspace(-1, 1, m.n_states), dtype)
    before = [backend.asnumpy(a).copy() for a in (xd, pd, v)]
    m.rhs(0.5, xd, pd)
    m.observe(0.5, xd, pd)
    m.jvp_x(0.5, xd, pd, v)
    m.jac_x(0.5, xd, pd)
    m.jac_p(0.5, xd, pd, sparse=True)
    m.integrate(xd, pd, t_span=(0.0, 1.0), save_times=[0.5, 1.0])
    backend.sync()
    for a, b in zip((xd, pd, v), before):
        np.testing.assert_array_equal(backend.asnumpy(a), b)


def test_hierarchical_fixture_values(fixture_module, backend, dtype):
    """Independent lineages, coupled habitats, shaped shared and local
    parameters, aliases, stage transport, every reduction."""
    m = fixture_module
    rng = np.random.default_rng(11)
    for trial in range(4):
        x, p = oracle.random_point(rng, 64)
        x, p = x.astype(dtype), p.astype(dtype)
        t = float(rng.uniform(0, 400))
        xd, pd = backend.asarray(x, dtype), backend.asarray(p, dtype)
        x64, p64 = x.astype(np.float64), p.astype(np.float64)
        close(backend.asnumpy(m.rhs(t, xd, pd)), oracle.rhs(t, x64, p64), dtype)
        close(backend.asnumpy(m.observe(t, xd, pd)), oracle.observe(t, x64, p64), dtype)


def test_strided_batches_follow_the_flat_layout(fixture_module, backend, dtype):
    m = fixture_module
    x, p = point(dtype, batch=9)
    xp = backend.xp
    ref = backend.asnumpy(m.rhs(2.0, backend.asarray(x, dtype), backend.asarray(p, dtype)))
    # A state embedded in a wider record (a column slice), read in place.
    record = xp.zeros((9, m.n_states + 7), dtype=dtype)
    record[:, 3:3 + m.n_states] = backend.asarray(x, dtype)
    embedded = record[:, 3:3 + m.n_states]
    assert not embedded.flags.c_contiguous
    np.testing.assert_array_equal(backend.asnumpy(m.rhs(2.0, embedded, backend.asarray(p, dtype))), ref)
    # A structure-of-arrays buffer (n, B), passed transposed: the result
    # comes back in the same order (batch fastest).
    soa = xp.ascontiguousarray(backend.asarray(x, dtype).T).T
    out = m.rhs(2.0, soa, backend.asarray(p, dtype))
    assert out.strides[0] == out.itemsize
    np.testing.assert_array_equal(backend.asnumpy(out), ref)
    # One parameter set for every instance: (n,) and (1, n).
    shared = m.rhs(2.0, backend.asarray(x, dtype), backend.asarray(p[0], dtype))
    np.testing.assert_array_equal(backend.asnumpy(shared)[0], ref[0])
    shared1 = m.rhs(2.0, backend.asarray(x, dtype), backend.asarray(p[:1], dtype))
    np.testing.assert_array_equal(backend.asnumpy(shared1), backend.asnumpy(shared))
    # A batch that repeats one row (stride 0 between instances) is read in place too.
    repeated = xp.broadcast_to(backend.asarray(p[0], dtype), (9, m.n_params))
    np.testing.assert_array_equal(backend.asnumpy(m.rhs(2.0, backend.asarray(x, dtype), repeated)),
                                  backend.asnumpy(shared))
    # out= a strided array the caller owns.
    target = xp.full((9, m.n_states + 2), -7.0, dtype=dtype)
    got = m.rhs(2.0, backend.asarray(x, dtype), backend.asarray(p, dtype), out=target[:, 1:1 + m.n_states])
    np.testing.assert_array_equal(backend.asnumpy(got), ref)
    assert (backend.asnumpy(target)[:, [0, -1]] == -7.0).all()


def test_constants_and_native_scalar_time(fixture_module, backend, dtype):
    """The literal 0.25, the named constant two_pi and time t in dF; time as a
    Python float, a NumPy scalar or a 0-d array."""
    m = fixture_module
    x, p = point(dtype, batch=3)
    xd, pd = backend.asarray(x, dtype), backend.asarray(p, dtype)
    t = 91.25  # a quarter of the period: season = 1.25
    ref = oracle.rhs(t, x.astype(np.float64), p.astype(np.float64))
    for tt in (t, np.float64(t), np.float32(t), np.array(t)):
        close(backend.asnumpy(m.rhs(tt, xd, pd)), ref, dtype)
    # dF at F = 0 and g = 0 is r * 1.25 exactly.
    x0 = x.copy()
    x0[:, oracle.F0:] = 0
    p0 = p.copy()
    p0[:, oracle.P_G] = 0
    dF = backend.asnumpy(m.rhs(t, backend.asarray(x0, dtype), backend.asarray(p0, dtype)))[:, oracle.F0:]
    close(dF, np.repeat(p0[:, [oracle.P_R]].astype(np.float64) * (1 + 0.25 * np.sin(oracle.TWO_PI * t / 365)),
                    oracle.L * oracle.H, axis=1), dtype)
    with pytest.raises(TypeError, match="t must be a scalar"):
        m.rhs(np.array([1.0, 2.0]), xd, pd)
    with pytest.raises(TypeError, match="t must be a real number"):
        m.rhs("noon", xd, pd)


def test_refusals_name_the_argument_and_write_nothing(fixture_module, backend, dtype):
    m = fixture_module
    xp = backend.xp
    x, p = point(dtype, batch=4)
    xd, pd = backend.asarray(x, dtype), backend.asarray(p, dtype)
    n = m.n_states
    out = xp.full((4, n), 3.5, dtype=dtype)
    other = np.float64 if dtype == np.float32 else np.float32
    cases = [
        (ValueError, r"x has shape \(4, %d\), expected \(%d,\) or \(B, %d\)" % (n + 1, n, n),
         lambda: m.rhs(0.0, xp.zeros((4, n + 1), dtype=dtype), pd, out=out)),
        (ValueError, r"p has shape \(4, 3\)", lambda: m.rhs(0.0, xd, xp.zeros((4, 3), dtype=dtype), out=out)),
        (ValueError, r"p has a batch of 5 but an earlier argument has 4",
         lambda: m.rhs(0.0, xd, backend.asarray(np.resize(p, (5, m.n_params)), dtype), out=out)),
        (TypeError, r"p has dtype .* but x has", lambda: m.rhs(0.0, xd, pd.astype(other), out=out)),
        (TypeError, r"x has dtype int64", lambda: m.rhs(0.0, xp.zeros((4, n), dtype=np.int64), pd, out=out)),
        (TypeError, r"x must be a NumPy array or a GPU array .* got builtins.list",
         lambda: m.rhs(0.0, [0.0] * n, pd, out=out)),
        (ValueError, r"out has shape \(4, %d\), expected \(4, %d\)" % (n - 1, n),
         lambda: m.rhs(0.0, xd, pd, out=xp.zeros((4, n - 1), dtype=dtype))),
        (TypeError, r"out has dtype", lambda: m.rhs(0.0, xd, pd, out=xp.zeros((4, n), dtype=other))),
        (ValueError, r"out overlaps the memory of x", lambda: m.rhs(0.0, xd, pd, out=xd)),
        (ValueError, r"negative stride", lambda: m.rhs(0.0, xd[::-1], pd, out=out)),
        (ValueError, r"jacobian must be one of", lambda: m.jacobian_pattern("q")),
        (ValueError, r"x repeats one value across its elements",
         lambda: m.rhs(0.0, xp.broadcast_to(xp.asarray(1.0, dtype=dtype), (4, n)), pd, out=out)),
        (TypeError, r"threads must be an int", lambda: m.rhs(0.0, xd, pd, out=out, threads=1.5)),
        (ValueError, r"threads must be at least 1", lambda: m.rhs(0.0, xd, pd, out=out, threads=0)),
    ]
    if backend.name == "numpy":
        ro = np.zeros((4, n), dtype=dtype)
        ro.flags.writeable = False
        cases.append((ValueError, r"out is read-only", lambda: m.rhs(0.0, xd, pd, out=ro)))
    else:
        # A NumPy state with a CuPy parameter set: one kind, one device; no
        # CPU fallback for GPU arrays, ever.
        cases.append((TypeError, r"p is a CuPy array on GPU 0 but x is a NumPy array in host memory",
                      lambda: m.rhs(0.0, x, pd)))
        cases.append((TypeError, r"out is a NumPy array in host memory but x is a CuPy array",
                      lambda: m.rhs(0.0, xd, pd, out=np.zeros((4, n), dtype=dtype))))
    x_before, p_before = backend.asnumpy(xd).copy(), backend.asnumpy(pd).copy()
    for kind, pattern, call in cases:
        with pytest.raises(kind, match=pattern):
            call()
    backend.sync()
    assert (backend.asnumpy(out) == 3.5).all()
    np.testing.assert_array_equal(backend.asnumpy(xd), x_before)
    np.testing.assert_array_equal(backend.asnumpy(pd), p_before)


def central_difference(f, a, h):
    """d f / d a by central differences, column j for a[:, j]; f and a in float64."""
    B, n = a.shape
    cols = []
    for j in range(n):
        step = h * np.maximum(1.0, np.abs(a[:, j]))
        up, dn = a.copy(), a.copy()
        up[:, j] += step
        dn[:, j] -= step
        cols.append((f(up) - f(dn)) / (2 * step)[:, None])
    return np.stack(cols, axis=2)  # (B, rows, n)


def derivative_tolerance(dtype):
    return 1e-4 if dtype == np.float32 else 1e-7


def check_jacobian(m, backend, dtype, name, x, p, expected):
    xd, pd = backend.asarray(x, dtype), backend.asarray(p, dtype)
    dense = backend.asnumpy(getattr(m, name)(3.0, xd, pd)).astype(np.float64)
    err = np.abs(dense - expected).max() / max(np.abs(expected).max(), 1e-300)
    assert err <= derivative_tolerance(dtype), "%s: relative error %.3g" % (name, err)
    # The sparse values fill the compile-time pattern; outside it, zeros.
    values = backend.asnumpy(getattr(m, name)(3.0, xd, pd, sparse=True))
    pattern = {"jac_x": "x", "jac_p": "p", "obs_jac_x": "obs_x", "obs_jac_p": "obs_p"}[name]
    indptr, indices, shape = m.jacobian_pattern(pattern)
    assert dense.shape[1:] == shape and values.shape == (x.shape[0], indptr[-1])
    rebuilt = np.zeros_like(dense)
    for r in range(shape[0]):
        rebuilt[:, r, indices[indptr[r]:indptr[r + 1]]] = values[:, indptr[r]:indptr[r + 1]]
    np.testing.assert_array_equal(rebuilt, dense)


def test_state_derivatives_exact(fixture_module, backend, dtype):
    m = fixture_module
    x, p = point(dtype, batch=4, seed=21)
    x64, p64 = x.astype(np.float64), p.astype(np.float64)
    fd = central_difference(lambda a: oracle.rhs(3.0, a, p64), x64, 1e-6)
    check_jacobian(m, backend, dtype, "jac_x", x, p, fd)
    v = np.random.default_rng(2).normal(size=(4, m.n_states))
    jv = backend.asnumpy(m.jvp_x(3.0, backend.asarray(x, dtype), backend.asarray(p, dtype), backend.asarray(v, dtype)))
    expected = np.einsum("bij,bj->bi", fd, v.astype(dtype).astype(np.float64))
    assert np.abs(jv - expected).max() / np.abs(expected).max() <= derivative_tolerance(dtype)


def test_parameter_and_observable_derivatives_exact(fixture_module, backend, dtype):
    m = fixture_module
    x, p = point(dtype, batch=4, seed=22)
    x64, p64 = x.astype(np.float64), p.astype(np.float64)
    check_jacobian(m, backend, dtype, "jac_p", x, p, central_difference(lambda a: oracle.rhs(3.0, x64, a), p64, 1e-6))
    check_jacobian(m, backend, dtype, "obs_jac_x", x, p,
                   central_difference(lambda a: oracle.observe(3.0, a, p64), x64, 1e-6))
    check_jacobian(m, backend, dtype, "obs_jac_p", x, p, np.zeros((4, m.n_observables, m.n_params)))
    v = np.random.default_rng(3).normal(size=m.n_params)
    jv = backend.asnumpy(m.jvp_p(3.0, backend.asarray(x, dtype), backend.asarray(p, dtype), backend.asarray(v, dtype)))
    fd = central_difference(lambda a: oracle.rhs(3.0, x64, a), p64, 1e-6)
    expected = fd @ v.astype(dtype).astype(np.float64)
    assert np.abs(jv - expected).max() / np.abs(expected).max() <= derivative_tolerance(dtype)
