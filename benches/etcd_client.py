"""`python -m benches.etcd_client`: what the etcd client alone costs a write, in this process's CPU.

The etcd store writes each object with one `KV.Txn` of grpcio's asyncio client and learns of it again
through the one watch it keeps over its prefix (`apiserver/storage/etcd.py`). This bench does only
that, with nothing of the server around it: puts of 300-byte values, 32 in flight, on a private etcd
(Debian's etcd-server, as the tests start it), first without a watch and then with one following the
prefix. The figure is the process's CPU time (the client's poller and event-engine threads included,
etcd's own not) per write, the least of `--rounds` rounds: the part of a write on etcd that no change
to the server's own code can take away.

    python -m benches.etcd_client
    python -m benches.etcd_client --writes 4000 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator

import grpc
import uvloop
from aetcd import rpc

from benches.private_etcd import private_etcd

_IN_FLIGHT = 32
_VALUE = b"x" * 300


async def _puts(kv: rpc.KVStub, prefix: bytes, writes: int) -> None:
    gate = asyncio.Semaphore(_IN_FLIGHT)

    async def put(i: int) -> None:
        async with gate:
            await kv.Txn(rpc.TxnRequest(success=[rpc.RequestOp(request_put=rpc.PutRequest(
                key=prefix + b"%d" % i, value=_VALUE))]))
    await asyncio.gather(*(put(i) for i in range(writes)))


async def _follow(channel: grpc.aio.Channel, prefix: bytes, seen: list[int]) -> None:
    async def requests() -> AsyncIterator[rpc.WatchRequest]:
        yield rpc.WatchRequest(create_request=rpc.WatchCreateRequest(key=prefix, range_end=prefix[:-1] + b"0"))
        await asyncio.get_running_loop().create_future()  # closing our side would end the watch

    async for answer in rpc.WatchStub(channel).Watch(requests()):
        seen[0] += len(answer.events)


async def measure(servers: str, writes: int, rounds: int) -> dict[str, float]:
    """CPU µs per write without and with the watch, the least of `rounds` rounds each."""
    channel = grpc.aio.insecure_channel(servers.removeprefix("http://"))
    kv = rpc.KVStub(channel)
    best: dict[str, float] = {}
    try:
        for watched in (False, True):
            name = "Txn put, watch following" if watched else "Txn put"
            for r in range(rounds):
                prefix = f"/bench/{int(watched)}-{r}/".encode()
                seen = [0]
                follower = asyncio.create_task(_follow(channel, prefix, seen)) if watched else None
                await asyncio.sleep(0.2)  # the watch is created before the first put
                started = time.process_time()
                await _puts(kv, prefix, writes)
                while follower is not None and seen[0] < writes:
                    await asyncio.sleep(0.001)
                best[name] = min(best.get(name, float("inf")), (time.process_time() - started) / writes * 1e6)
                if follower is not None:
                    follower.cancel()
    finally:
        await channel.close()
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benches.etcd_client", description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=4_000, help="puts per round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with private_etcd("etcd-client-bench-") as servers:
        best = uvloop.run(measure(servers, args.writes, args.rounds))
    print(f"CPU µs per write of grpcio's asyncio client, {_IN_FLIGHT} in flight, the least of {args.rounds} "
          f"rounds of {args.writes} (load average {os.getloadavg()[0]:.2f})")
    print("| write | µs |\n|---|---:|")
    for name, cost in best.items():
        print(f"| {name} | {cost:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
