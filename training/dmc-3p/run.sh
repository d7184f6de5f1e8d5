#!/usr/bin/env bash
# The 3-player dmc run of issue 51, from the repository root (extra arguments: --resume).
# It ran 2.25 h with --hours 2.25, then was continued with --hours 3 --resume (the hours are
# not part of the checkpoint's identity).
exec durak train dmc --vs self,greedy,lowest --players 3 --hours 3 --seed 20261127 --jobs 1 --out training/dmc-3p/dmc-3p-36.pt -q "$@"
