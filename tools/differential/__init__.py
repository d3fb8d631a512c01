"""The differential harness: generated cases sent to kube-apiserver 1.36.2 and to ours, answers compared.

generate.py makes the cases, record.py records the reference's answers as the fixture under
tests/differential/, compare.py replays them against our server; see README.md beside this file.
"""
