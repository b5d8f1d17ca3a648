"""One connection's outgoing side: the single writer of its stream, and its subscriptions.

Responses (from requests answered concurrently) and `changed` notifications (from
the writer's turn, through service/core/changes.py) all leave through `send`, one frame
or batch at a time under a lock, so frames never interleave and one `drain` waits at
a time. A subscription's changes reach the stream through `pump`, a task of the
connection that waits until a queue has something, then writes it: a client that
does not read blocks only its own pump, while the publisher keeps offering to a
bounded queue, which overflows into a `resync`.

A subscription's first notification never precedes the response to its `subscribe`:
the handler runs on the loop without yielding, and the answer asks for the lock
before the pump can run (asyncio.Lock serves waiters first come, first served).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket

import msgspec

from enyal_protocol import wire as p

from ..errors import InvalidValue, NotFound
from ..service.core.changes import Filter, Publisher, Subscription

log = logging.getLogger(__name__)

MAX_SUBSCRIPTIONS = 16  # per connection
# A subscriber's connection buffers little: what it cannot take goes to its bounded queue
# and then becomes a resync, rather than piling up in the kernel and in the transport.
SEND_BUFFER = 16 * 1024
WRITE_HIGH_WATER = 16 * 1024

_encoder = msgspec.json.Encoder()


class Session:
    def __init__(self, writer: asyncio.StreamWriter, publisher: Publisher) -> None:
        self._writer = writer
        self._publisher = publisher
        self._lock = asyncio.Lock()
        self._subs: dict[str, Subscription] = {}
        self._wake = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None
        self._loop = asyncio.get_running_loop()

    async def send(self, frame: bytes) -> None:
        """Write whole frames and wait until the transport takes them."""
        async with self._lock:
            if self._writer.is_closing():
                return
            self._writer.write(frame)
            await self._writer.drain()

    # --- subscribe / unsubscribe (run on the loop: cheap, and ordered with the answer) ---

    def subscribe(self, params: p.SubscribeParams) -> p.SubscribeResult:
        if len(self._subs) >= MAX_SUBSCRIPTIONS:
            raise InvalidValue(
                f"this connection already has {MAX_SUBSCRIPTIONS} subscriptions; unsubscribe one"
            )
        f = Filter.from_params(params)
        if self._pump is None:
            self._narrow_buffers()
            self._pump = asyncio.create_task(self._run_pump())
        sub = self._publisher.subscribe(f, self._wake_soon)
        self._subs[sub.id] = sub
        return p.SubscribeResult(subscription=sub.id, filter=f.wire(), queue=sub.size)

    def unsubscribe(self, params: p.UnsubscribeParams) -> p.UnsubscribeResult:
        if params.subscription is None:
            ids = list(self._subs)
        elif params.subscription in self._subs:
            ids = [params.subscription]
        else:
            raise NotFound(f"this connection has no subscription {params.subscription!r}")
        for sub_id in ids:
            self._publisher.unsubscribe(self._subs.pop(sub_id))
        return p.UnsubscribeResult(unsubscribed=ids)

    async def close(self) -> None:
        """The connection ends: its subscriptions with it."""
        for sub in self._subs.values():
            self._publisher.unsubscribe(sub)
        self._subs.clear()
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._pump

    # --- delivery ------------------------------------------------------------------------

    def _wake_soon(self) -> None:
        """Called on the writer's turn (store/writer.py); never blocks."""
        with contextlib.suppress(RuntimeError):  # the loop is closed: the daemon is gone
            self._loop.call_soon_threadsafe(self._wake.set)

    def _narrow_buffers(self) -> None:
        sock = self._writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        transport = self._writer.transport
        if isinstance(transport, asyncio.WriteTransport):
            transport.set_write_buffer_limits(high=WRITE_HIGH_WATER)

    async def _run_pump(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                for sub in list(self._subs.values()):
                    if sub.id not in self._subs:  # unsubscribed while we sent another's
                        continue
                    changes, dropped, more = sub.take()
                    if more:
                        self._wake.set()
                    frames = []
                    if dropped:
                        resync = p.Resync(subscription=sub.id, dropped=dropped)
                        frames.append(_notification(p.RESYNC, resync))
                    for change in changes:
                        change = msgspec.structs.replace(change, subscription=sub.id)
                        frames.append(_notification(p.CHANGED, change))
                    if frames:
                        await self.send(b"".join(frames))
        except ConnectionError:
            pass  # the client went away; the connection's own loop ends the session


def _notification(method: str, params: msgspec.Struct) -> bytes:
    return _encoder.encode(p.Notification(method=method, params=params)) + b"\n"
