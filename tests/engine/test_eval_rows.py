"""`workbench eval --rows N|all`: the clearer spelling of --limit, read by the real parser."""

from __future__ import annotations

import pytest

from workbench.cli import build_parser


def _limit(*flags):
    return build_parser().parse_args(["eval", "--project", "p", "--run", "r", *flags]).limit


def test_rows_takes_a_count_or_all_and_limit_still_works():
    assert _limit("--rows", "200") == 200
    assert _limit("--rows", "all") == 0 == _limit("--rows", "ALL") == _limit("--limit", "0")
    assert _limit("--limit", "8") == 8
    assert _limit() is None  # the default: all rows, or a sample for instruction tuning


@pytest.mark.parametrize("flags, words", [(["--rows", "0"], "give 1 or more"), (["--rows", "some"], "or 'all'"),
                                          (["--rows", "5", "--limit", "3"], "not allowed with")])
def test_bad_rows_are_refused_in_words(flags, words, capsys):
    with pytest.raises(SystemExit) as exc:
        _limit(*flags)
    assert exc.value.code == 2 and words in capsys.readouterr().err


def test_a_long_wait_reports_a_heartbeat_until_the_result_is_there():
    """The evaluation waits for the baseline with heartbeats (a fit over many labels takes
    minutes); here the result arrives only once two heartbeats were sent."""
    from concurrent.futures import Future

    from workbench.engine.evaluation.evaluate import wait_reporting

    future: Future = Future()
    beats = []

    def heartbeat():
        beats.append(1)
        if len(beats) == 2:
            future.set_result("fitted")

    assert wait_reporting(future, heartbeat, every=0.01) == "fitted" and len(beats) == 2
    done: Future = Future()
    done.set_result(None)
    assert wait_reporting(done, lambda: beats.append(1), every=0.01) is None and len(beats) == 2
