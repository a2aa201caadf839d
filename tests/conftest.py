"""Shared test settings: hypothesis runs derandomized (seeded) and without deadlines."""
from hypothesis import HealthCheck, settings

settings.register_profile(
    "dogtable",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("dogtable")
