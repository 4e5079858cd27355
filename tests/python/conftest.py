"""Fixtures of the python suite: the compiled modules (found where Meson
built them: FLUXION_PYTHON_PATH, a list of folders), the array packages
(NumPy always; CuPy, PyTorch and JAX where installed and a GPU is usable:
otherwise each of their cases skips with the reason), and the dtypes."""
import os
import sys

import numpy as np
import pytest

for folder in reversed(os.environ.get("FLUXION_PYTHON_PATH", "").split(os.pathsep)):
    if folder and folder not in sys.path:
        sys.path.insert(0, folder)
sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(scope="session")
def fixture_module():
    import fixture_py
    return fixture_py


@pytest.fixture(scope="session")
def seir_module():
    try:
        import seir_py
    except ImportError as e:
        pytest.skip("the SEIR example's module is not built here (examples/python; -Dexamples=true): %s" % e)
    return seir_py


def _gpu_reason(module):
    """Why GPU arrays cannot be tested here, or None."""
    if not module.has_cuda:
        return "the module was built without CUDA (no nvcc at build time)"
    try:
        import cupy
    except Exception as e:  # ImportError, or a broken CUDA install
        return "CuPy is not importable: %s" % (e,)
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        return "CUDA is not usable through CuPy: %s" % (e,)
    if n < 1:
        return "no CUDA device"
    return None


class Backend:
    """One array package: how to make arrays, copy them to the host, and what
    a result must be."""

    def __init__(self, name, xp, asnumpy, array_type):
        self.name, self.xp, self.asnumpy, self.array_type = name, xp, asnumpy, array_type

    def asarray(self, a, dtype):
        return self.xp.asarray(np.asarray(a, dtype=dtype))

    def sync(self):
        if self.name == "cupy":
            self.xp.cuda.get_current_stream().synchronize()


@pytest.fixture(params=["numpy", "cupy"])
def backend(request, fixture_module):
    if request.param == "numpy":
        return Backend("numpy", np, np.asarray, np.ndarray)
    reason = _gpu_reason(fixture_module)
    if reason:
        pytest.skip(reason)
    import cupy
    return Backend("cupy", cupy, cupy.asnumpy, cupy.ndarray)


@pytest.fixture
def cupy_backend(fixture_module):
    reason = _gpu_reason(fixture_module)
    if reason:
        pytest.skip(reason)
    import cupy
    return Backend("cupy", cupy, cupy.asnumpy, cupy.ndarray)


@pytest.fixture(params=[np.float32, np.float64], ids=["float32", "float64"])
def dtype(request):
    return request.param


def tolerance(dtype):
    """Relative tolerance of a value computed in dtype against a float64 oracle."""
    return 2e-5 if dtype == np.float32 else 1e-12
