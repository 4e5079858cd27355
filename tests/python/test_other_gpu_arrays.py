"""GPU arrays of other packages, read in place through
__cuda_array_interface__: PyTorch CUDA tensors (results are tensors on the
same device) and JAX arrays on a GPU (results are JAX arrays). Each case
skips, with its reason, where the package, CUDA or a GPU is missing."""
import numpy as np
import pytest

import oracle
from conftest import tolerance


def torch_cuda():
    try:
        import torch
    except Exception as e:
        pytest.skip("PyTorch is not importable: %s" % e)
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch


def jax_gpu():
    try:
        import jax
        import jax.numpy as jnp
    except Exception as e:
        pytest.skip("JAX is not importable: %s" % e)
    try:
        gpus = jax.devices("gpu")
    except Exception as e:
        pytest.skip("JAX sees no GPU: %s" % e)
    if not gpus:
        pytest.skip("JAX sees no GPU")
    return jax, jnp


def gpu_module(m):
    if not m.has_cuda:
        pytest.skip("the module was built without CUDA (no nvcc at build time)")
    return m


def test_torch_tensors_in_place(fixture_module, dtype):
    m = gpu_module(fixture_module)
    torch = torch_cuda()
    x, p = oracle.random_point(np.random.default_rng(5), 8)
    tdt = torch.float32 if dtype == np.float32 else torch.float64
    xt = torch.tensor(x.astype(dtype), device="cuda", dtype=tdt)
    pt = torch.tensor(p.astype(dtype), device="cuda", dtype=tdt)
    dx = m.rhs(1.5, xt, pt)
    assert isinstance(dx, torch.Tensor) and dx.is_cuda and dx.dtype == tdt and tuple(dx.shape) == (8, m.n_states)
    ref = oracle.rhs(1.5, x.astype(dtype).astype(np.float64), p.astype(dtype).astype(np.float64))
    err = np.abs(dx.cpu().numpy() - ref).max() / np.abs(ref).max()
    assert err <= tolerance(dtype)
    out = torch.zeros((8, m.n_states), device="cuda", dtype=tdt)
    assert m.rhs(1.5, xt, pt, out=out) is out
    torch.cuda.synchronize()
    assert torch.equal(out, dx)
    # A transposed (structure-of-arrays) tensor is read in place.
    soa = xt.t().contiguous().t()
    assert torch.equal(m.rhs(1.5, soa, pt), dx)
    r = m.integrate(xt, pt, t_span=(0.0, 1.0), save_times=[0.5, 1.0])
    assert isinstance(r.saved, torch.Tensor) and (r.status.cpu().numpy() == 0).all()
    # A host tensor is not read (no copy, no CPU fallback): pass numpy.asarray of it.
    with pytest.raises(TypeError, match=r"p must be a NumPy array or a GPU array .*pass p.numpy\(\)"):
        m.rhs(1.5, xt, pt.cpu())
    # A tensor that requires grad exports no memory: detach it.
    with pytest.raises(TypeError, match=r"requires grad .*x.detach\(\)"):
        m.rhs(1.5, xt.clone().requires_grad_(True), pt)


def test_jax_arrays_in_place(fixture_module, dtype):
    m = gpu_module(fixture_module)
    jax, jnp = jax_gpu()
    if dtype == np.float64:
        jax.config.update("jax_enable_x64", True)
    x, p = oracle.random_point(np.random.default_rng(6), 8)
    xj = jax.device_put(jnp.asarray(x.astype(dtype)), jax.devices("gpu")[0])
    pj = jax.device_put(jnp.asarray(p.astype(dtype)), jax.devices("gpu")[0])
    assert xj.dtype == dtype
    dx = m.rhs(1.5, xj, pj)
    assert isinstance(dx, jax.Array) and dx.dtype == dtype and dx.shape == (8, m.n_states)
    ref = oracle.rhs(1.5, x.astype(dtype).astype(np.float64), p.astype(dtype).astype(np.float64))
    err = np.abs(np.asarray(dx) - ref).max() / np.abs(ref).max()
    assert err <= tolerance(dtype)
    with pytest.raises(TypeError, match="immutable"):
        m.rhs(1.5, xj, pj, out=xj + 0)
    # Ensembles come back as JAX arrays too (their strided views made contiguous).
    r = m.integrate(xj, pj, t_span=(0.0, 1.0), save_times=[0.5, 1.0], method="tsit5")
    assert isinstance(r.saved, jax.Array) and r.saved.shape == (8, 2, m.n_states)
    assert (np.asarray(r.status) == 0).all()
    np.testing.assert_array_equal(np.asarray(r.saved)[:, -1, :], np.asarray(r.final))
