cd /work/wt/train3
export PYTHONPATH=/work/wt/train3/src
exec /work/main/.venv/bin/python -c "import sys; from durak.cli.app import main; sys.argv[0]='durak'; main()" train dmc --vs self,greedy,lowest --players 3 --hours 2.25 --seed 20261127 --jobs 1 --out training/dmc-3p/dmc-3p-36.pt -q "$@"
