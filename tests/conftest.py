"""Shared test settings: numpy's BLAS on one thread, freed memory kept for reuse; hypothesis runs
derandomized (seeded) and without deadlines."""
import ctypes
import os

# Before anything imports numpy: OpenBLAS otherwise starts a thread per core, and its idle threads
# spin. With `pytest -n 2` on 2 cores, two workers' spinning threads took ~40% more CPU for the
# vision tests (tests/vision/test_{reading,glow,cover,calibration,cards}.py: 36 s instead of 60 s of
# CPU), and the sums then also do not depend on the machine's core count. A value already set wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _keep_freed_memory() -> None:
    """glibc: arrays up to 32 MiB (a rendered frame and its temporaries) come from the heap, and
    freed heap stays with the process, instead of each being mapped afresh and zeroed by the kernel.
    tests/vision in one process: 17 s -> 8 s of system time, the same user time. Elsewhere a no-op."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None:
        return
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3  # <malloc.h>
    if mallopt(m_mmap_threshold, 32 << 20):  # 0: refused (32-bit glibc takes 512 KiB at most)
        mallopt(m_trim_threshold, 256 << 20)
        mallopt(m_top_pad, 64 << 20)


_keep_freed_memory()

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "dogtable",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("dogtable")
