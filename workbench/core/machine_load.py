"""How busy the processor is with other work: one measure for the two decisions it feeds.

The engine runs on the cores other work leaves idle (engine/models/devices.py: compute_threads), and an
estimate made before a run counts on the share of the processor free when it is made
(core/timing.py: start_estimate). Both read the system's CPU use over a short window, here.

The estimates were measured on idle machines (core/recommend.py). A built-in run estimated at
26 to 53 s took 208 s on a machine busy with other work. A run computes on the cores other work
leaves (its threads are chosen so), and the small models that estimates are measured on are
bound by per-operator overhead, which one core carries: on 2 cores with 51 % of the processor
busy (one core taken) a builtin:tiny run took 4.4 s against 4.3 estimated for an idle machine.
Less than one core free, the run shares a core with the other work, and its CPU-bound time
grows as one over the share of a core it gets.
"""

from __future__ import annotations

# the window the use is measured over, in seconds (the load average would still count a run
# that has just ended)
LOAD_WINDOW_S = 0.5
# a run gets at least this share of a core however busy the processor is (the scheduler shares
# the cores with the other work): at most 1 / FREE_FLOOR times the idle estimate
FREE_FLOOR = 0.25


def busy_share(interval: float | None = LOAD_WINDOW_S) -> float | None:
    """The share of the processor (all its logical cores, 0 to 1) in use over the last
    ``interval`` seconds, which sleeps that long; ``None`` compares with the previous call
    instead and returns at once (a window between two calls of a timer). None where the
    system's use cannot be read."""
    try:
        import psutil

        return max(0.0, min(1.0, float(psutil.cpu_percent(interval=interval)) / 100.0))
    except (ImportError, OSError, AttributeError, ValueError):
        return None


def logical_cores(default: int = 1) -> int:
    try:
        import psutil

        return max(1, psutil.cpu_count() or default)
    except (ImportError, OSError, AttributeError):
        return max(1, default)


def busy_cores(share: float | None, cores: int) -> int:
    """How many of ``cores`` (logical) cores other work keeps busy at ``share`` of the processor."""
    return round((share or 0.0) * cores)


def free_cores(share: float | None, cores: int) -> float:
    """The cores (logical, fractional) that other work leaves free at ``share`` of ``cores`` busy."""
    return (1.0 - min(max(share or 0.0, 0.0), 1.0)) * max(cores, 1)


def load_factor(share: float | None, cores: int | None = None) -> float:
    """How many times as long CPU-bound work takes at ``share`` of the processor's ``cores``
    (logical; this computer's where not given) busy as on an idle processor: 1 while a whole
    core is free, else one over the share of a core left, never below FREE_FLOOR."""
    if share is None:
        return 1.0
    free = free_cores(share, cores or logical_cores())
    return 1.0 / max(FREE_FLOOR, min(1.0, free))


def others_busy_share(system_busy_s: float, own_s: float, elapsed_s: float, cores: int) -> float:
    """The share of the processor (0 to 1) that work other than this process used over a window of
    ``elapsed_s`` seconds, in which all ``cores`` (logical) were busy ``system_busy_s`` CPU seconds
    and this process ``own_s`` of them. A run's own threads must not count as other work: measured
    while it trains, the whole processor's use is mostly its own."""
    if elapsed_s <= 0 or cores <= 0:
        return 0.0
    return max(0.0, min(1.0, (system_busy_s - own_s) / (elapsed_s * cores)))
