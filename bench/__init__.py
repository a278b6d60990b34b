"""The benchmarks: each script measures one thing and prints JSON (python bench/<name>.py --help)."""
