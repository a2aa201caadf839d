"""Shared test settings: numpy's BLAS on one thread; hypothesis runs derandomized (seeded) and without deadlines."""
import os

# Before anything imports numpy: OpenBLAS otherwise starts a thread per core, and its idle threads
# spin. With `pytest -n 2` on 2 cores, two workers' spinning threads took ~40% more CPU for the
# vision tests (tests/vision/test_{reading,glow,cover,calibration,cards}.py: 36 s instead of 60 s of
# CPU), and the sums then also do not depend on the machine's core count. A value already set wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "dogtable",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("dogtable")
