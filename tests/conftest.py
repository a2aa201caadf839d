"""Shared test settings: numpy's BLAS on one thread; hypothesis runs derandomized (seeded) and without
deadlines; under xdist the longest modules start first and idle workers take work from busy ones."""
import os

# Before anything imports numpy: OpenBLAS otherwise starts a thread per core, and its idle threads
# spin. With `pytest -n 2` on 2 cores, two workers' spinning threads took ~40% more CPU for the
# vision tests (tests/vision/test_{reading,glow,cover,calibration,cards}.py: 36 s instead of 60 s of
# CPU), and the sums then also do not depend on the machine's core count. A value already set wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "dogtable",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("dogtable")

# The modules whose tests take longest, longest first (they replay whole games through the service,
# the journal or a browser, render photo-like pictures, or enumerate every play of many positions).
# Run first, they end while the many short tests are still left to share out; run last, as the file
# order put the vision tests, one worker ran them alone while the other had nothing left to do.
LONGEST_FIRST = (
    "tests/companion/test_pipeline.py",
    "tests/companion/test_browser_game.py",
    "tests/companion/test_browser_linked.py",
    "tests/vision/test_photo_reading.py",
    "tests/companion/test_journal_record.py",
    "tests/companion/test_journal_damage.py",
    "tests/vision/test_ring_stress.py",
    "tests/companion/test_record.py",
    "tests/companion/test_table.py",
    "tests/vision/test_reading.py",
    "tests/vision/test_dim_light.py",
    "tests/companion/test_calibrate_camera.py",
    "tests/vision/test_cover.py",
    "tests/companion/test_journal.py",
    "tests/vision/test_photo_scene.py",
    "tests/engine/test_selfplay_games.py",
    "tests/engine/test_black_partner_card.py",
    "tests/engine/test_properties.py",
    "tests/engine/test_direction.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules of LONGEST_FIRST before all others, in its order; each module's tests stay together
    and in their own order (module fixtures are made once per worker), the other modules in file order."""
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Work stealing unless `--dist` says otherwise: xdist's default (`load`) hands a worker a batch of
    tests that it keeps, and at the end one worker ran a long test while the other waited; a worker
    out of tests here takes half of the busiest one's queue."""
    if config.getoption("dist") != "load" or any(a.startswith("--dist") for a in config.invocation_params.args):
        return None
    from xdist.scheduler import WorkStealingScheduling  # xdist is there: it calls this hook

    return WorkStealingScheduling(config, log)
