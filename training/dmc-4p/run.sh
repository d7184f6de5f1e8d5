#!/usr/bin/env bash
# The 4-player dmc run of issue 51, from the repository root (extra arguments: --resume).
# Its first 41 s ran with --hours 3; the session's budget then cut it to --hours 1.85 with
# --resume (the hours are not part of the checkpoint's identity).
exec durak train dmc --vs self,greedy,greedy,greedy,lowest --players 4 --hours 1.85 --jobs 1 --seed 5016 --interval 100000 --curve-games 400 --out training/dmc-4p/dmc-4p-36.pt -q "$@"
