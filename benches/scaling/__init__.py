"""How list costs grow with the objects in a namespace. `python -m benches.scaling --help`."""
