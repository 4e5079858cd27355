"""Two modules in one process (the fixture and the SEIR example, as a
user's session imports several): each call reaches its own module's code,
on the host and on the GPU, whatever was imported or called first. (Device
tables that were one symbol for every module of a process once made the
SEIR module's GPU calls run the fixture's.)"""
import numpy as np

import oracle


def test_each_module_runs_its_own_model(fixture_module, seir_module, backend, dtype):
    f, s = fixture_module, seir_module
    assert (f.n_states, s.n_states) == (oracle.N_STATES, 4)
    fx, fp = oracle.random_point(np.random.default_rng(9), 5)
    sx = np.array([[9e4, 500.0, 300.0, 9200.0]] * 5) * np.linspace(0.9, 1.1, 5)[:, None]
    sp = np.array([[0.6, 0.25, 0.2, 0.3, 12.0]] * 5)
    fx, fp, sx, sp = (a.astype(dtype) for a in (fx, fp, sx, sp))
    rel = 2e-5 if dtype == np.float32 else 1e-12
    for _ in range(2):  # alternate between the modules
        got = backend.asnumpy(s.rhs(0.0, backend.asarray(sx, dtype), backend.asarray(sp, dtype)))
        ref = oracle.seir_rhs(0.0, sx.astype(np.float64), sp.astype(np.float64))
        assert np.abs(got - ref).max() <= rel * np.abs(ref).max()
        got = backend.asnumpy(f.rhs(0.0, backend.asarray(fx, dtype), backend.asarray(fp, dtype)))
        ref = oracle.rhs(0.0, fx.astype(np.float64), fp.astype(np.float64))
        assert np.abs(got - ref).max() <= rel * np.abs(ref).max()
    # Each module's Jacobians, integrations and (for the SEIR) log-density.
    assert backend.asnumpy(s.jac_x(0.0, backend.asarray(sx, dtype), backend.asarray(sp, dtype))).shape == (5, 4, 4)
    r = s.integrate(backend.asarray(sx, dtype), backend.asarray(sp, dtype), t_span=(0.0, 5.0), save_times=[5.0],
                    method="rodas5p", rtol=1e-6, atol=1e-3)
    assert r.final.shape == (5, 4) and (backend.asnumpy(r.status) == 0).all()
    total = backend.asnumpy(r.final).astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(total, sx.astype(np.float64).sum(axis=1), rtol=1e-4 if dtype == np.float32 else 1e-9)
    d = s.log_density(backend.asarray(sx, dtype), backend.asarray(sp, dtype), data=[{"values": [100.0, 120.0]}],
                      t_span=(0.0, 2.0), save_times=[1.0, 2.0])
    assert np.isfinite(backend.asnumpy(d.value)).all()
    assert not f.has_log_density and s.has_log_density
