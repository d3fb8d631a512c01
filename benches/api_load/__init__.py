"""Load over real HTTP/1.1 keep-alive against the real server (or any Kubernetes API server).

`python -m benches.api_load --help`. Modules: `servers` starts our server and the floor app, `client`
seeds and checks over the API, `wrk` drives the HTTP scenarios, `watch` the watch scenarios,
`scenarios` says what each one requests, `report` turns runs into medians, tables and a chart,
`compare` decides what counts as a regression.
"""
