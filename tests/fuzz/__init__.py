"""Fuzz of every public function with bad arguments, in child processes against the real runtime.

    python -m tests.fuzz --full                 # every candidate of every library (the release check)
    python -m tests.fuzz --subset 3 --seed 1    # a seeded sample per function (what CI runs)

See tests/fuzz/cases.py for the candidates, worker.py for the guard bytes, runner.py for the pool.
"""
