"""The daemon harness shared by the test suite (tests/conftest.py, tests/daemon_support.py)
and the reliability suite (scripts/torturelib): how a daemon subprocess is started on a
home of its own, waited for until it answers, stopped, and given a clock a test can move.

It lives in scripts/ because scripts/torture runs without pytest and imports nothing from
tests/; the tests put scripts/ on sys.path (conftest.py), as they already did to reach
torturelib. It imports only the installed packages, never tests/ or torturelib.
"""
