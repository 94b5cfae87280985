#!/usr/bin/env python3
"""An aiocoap 0.4.17 server with the resources of `coapcc server`, for the interop tests.

Usage: aiocoap_server.py [--bind ADDR] [--port PORT]   (default 127.0.0.1:5683)

Resources (the same as ours, so every client can run the same checks against every server):
  /echo               the request body back: 2.05 for GET and POST, 2.04 for PUT
                      (aiocoap does Block1 and Block2 itself, so a block-wise PUT is
                      echoed whole)
  /data?size=N        GET: 2.05 with N bytes (N <= 1 000 000), the digits 0-9 repeated
                      (Block2 when it does not fit one datagram); a bad or missing size
                      answers 4.00
  /.well-known/core   the link format of the above

It prints "ready" on stdout once the socket is bound; the test harness starts it in the
background, probes it with a GET until it answers, and stops exactly its PID.
Loopback only: the harness always binds it to 127.0.0.1.
"""

import argparse
import asyncio
import sys

import aiocoap
import aiocoap.resource as resource

MAX_SIZE_BYTES = 1_000_000


def digits(size: int) -> bytes:
    """The body of /data?size=N, as `coapcc server` has it: the digits 0-9 repeated."""
    return (b"0123456789" * (size // 10 + 1))[:size]


class Echo(resource.Resource):
    """Every method answers the request body."""

    async def render_get(self, request):
        return aiocoap.Message(code=aiocoap.CONTENT, payload=request.payload)

    async def render_put(self, request):
        return aiocoap.Message(code=aiocoap.CHANGED, payload=request.payload)

    async def render_post(self, request):
        return aiocoap.Message(code=aiocoap.CONTENT, payload=request.payload)


class Data(resource.Resource):
    """GET /data?size=N answers N bytes of digits."""

    async def render_get(self, request):
        size = None
        for query in request.opt.uri_query:
            key, _, value = query.partition("=")
            if key == "size" and value.isdigit():
                size = int(value)
        if size is None or size > MAX_SIZE_BYTES:
            return aiocoap.Message(code=aiocoap.BAD_REQUEST, payload=b"size=N needed, N <= 1000000")
        return aiocoap.Message(code=aiocoap.CONTENT, payload=digits(size))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5683)
    args = parser.parse_args()

    site = resource.Site()
    site.add_resource([".well-known", "core"], resource.WKCResource(site.get_resources_as_linkheader))
    site.add_resource(["echo"], Echo())
    site.add_resource(["data"], Data())
    await aiocoap.Context.create_server_context(site, bind=(args.bind, args.port))
    print("ready", flush=True)
    await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
