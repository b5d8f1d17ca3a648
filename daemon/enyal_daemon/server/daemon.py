"""`enyal daemon`: the process that owns the database and the warm model.

Life of the process:
  lock the pidfile (a second daemon on the same home exits) -> load and verify
  the model -> open the database (migrate, load the vector index) -> listen on
  the Unix socket -> serve -> on SIGTERM/SIGINT stop accepting, let in-flight
  requests finish, drain the writer, checkpoint the WAL, remove the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import stat
import sys
import time
from collections.abc import Awaitable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from enyal_protocol import __version__
from enyal_protocol import config as enyal_config
from enyal_protocol import wire as p
from enyal_protocol.config import Config
from enyal_protocol.hooks.token import hook_token
from enyal_protocol.paths import Paths, ensure_private_dir

from .. import heap
from ..embedder import build8
from ..embedder.model_files import locate
from ..errors import AlreadyRunning, EnyalError, StartupError, TooLarge
from ..locks import acquire_pidfile, lock_database, release_pidfile
from ..service.core import traffic
from ..service.core.engine import Engine
from ..service.files import sharing
from ..service.files.sharer import Sharer
from ..service.files.watching import Watcher
from ..service.hub.replica import replica_of
from ..service.memory import consolidation
from ..service.rules import redaction
from ..service.rules.clock import SYSTEM, Clock
from ..service.upkeep import backfill
from ..service.upkeep.text_merge import TextMerge
from ..service.verbs import bind
from ..store import db
from .activation import inherited_socket, notify
from .dispatch import Dispatcher, Handler, error_frame
from .hook_http import HookEndpoint
from .idle import IdleWatch
from .limits import REFUSING, connection_cap
from .peer import same_user
from .periodic import DONE, Done, every
from .session import Session

log = logging.getLogger("enyal.daemon")

TOUCH_FLUSH_SECONDS = 2.0
# The scheduled consolidation waits for this long without an acknowledged write: it
# holds the writer while it merges, and a burst of remembers should not wait on it.
QUIET_SECONDS = 30.0
# Between steps of giving older memories passages: a step is about a second of one core,
# so requests keep most of the machine while it runs.
BACKFILL_PAUSE_SECONDS = 0.5
BACKFILL_RETRY_SECONDS = 60.0
# How often the keyword indexes are looked at for a merge once the store was written
# (service/upkeep/text_merge.py): at start, then this long after a write at most.
TEXT_MERGE_SECONDS = 10.0
MAX_IN_FLIGHT_PER_CONNECTION = 64
# A new connection's first frame is due within this long, or it is closed (a client sends
# its first request as it connects; one that sends nothing holds a slot for nothing).
HANDSHAKE_SECONDS = 10.0
# An answer not taken by its client within this stops counting as a request being
# answered (`_sent`): waiting on a client's reading costs the daemon nothing.
UNREAD_SECONDS = 1.0
# A connection over daemon.max_connections gets its refusal, and this long to read it.
REFUSE_SECONDS = 2.0


def answers(path: Path) -> bool:
    """Whether something accepts connections on `path` (a daemon, or a service manager's
    socket, which accepts into its backlog even while no daemon runs)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def bind_socket(path: Path, *, ours: bool = True) -> socket.socket:
    try:
        ensure_private_dir(path.parent, ours=ours)
    except PermissionError as exc:
        raise StartupError(str(exc)) from None
    # We hold the pidfile lock, so no other daemon serves this home. A socket file here
    # belongs to a dead daemon, unless a service manager holds it for socket activation:
    # unlinking that would leave its socket unit listening on a path nobody can reach.
    if answers(path):
        raise AlreadyRunning(
            f"something already listens on {path}: a service manager's socket for enyal "
            "(see `enyal service status`), or a daemon of another ENYAL_HOME"
        )
    _remove_stale_socket(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(128)
    sock.setblocking(False)
    return sock


def _remove_stale_socket(path: Path) -> None:
    """A dead daemon's socket is removed; anything else there (ENYAL_SOCKET naming a file
    or a folder by mistake) is the user's, and is left alone with a clear refusal."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(st.st_mode):
        what = "a folder" if stat.S_ISDIR(st.st_mode) else "a file, not a socket"
        raise StartupError(
            f"{path} is {what}: Enyal does not replace it. Point ENYAL_SOCKET at a path "
            "where nothing is (the daemon makes the socket there), or move it away"
        )
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


async def _sent(send: Awaitable[None], answered: traffic.Answer) -> None:
    """The answer's write, counted as the request's (`traffic.answering`) for
    UNREAD_SECONDS at most: background work steps aside while a request is answered, and
    a client that never reads a large answer would hold every catch-up and text merge to
    its stepped-aside pace for as long as its connection stays open. A timer, not a task
    raced against one: this is every answer's way out."""
    timer = asyncio.get_running_loop().call_later(UNREAD_SECONDS, answered.end)
    try:
        await send
    finally:
        timer.cancel()


@dataclass
class Daemon:
    paths: Paths
    engine: Engine
    idle: IdleWatch = field(default_factory=lambda: IdleWatch(0.0))
    consolidate_every: float = 0.0  # seconds; 0 = never (config consolidate.every_hours)
    watch_debounce: float | None = None  # seconds; None = no watcher (config index.watch)
    started: float = field(default_factory=time.monotonic)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    _connections: set[asyncio.Task[Any]] = field(default_factory=set)
    max_connections: int = 256  # served at once; limits.connection_cap of the config's
    # The hook endpoint's port and token ([hooks] http = true); None: no port is opened.
    hook_http: tuple[int, str] | None = None
    _open: int = 0
    _refusing: int = 0

    def status(self, _: p.StatusParams) -> p.Status:
        files = self.engine.embedder.files
        return p.Status(
            version=__version__,
            protocol=p.PROTOCOL_VERSION,
            pid=os.getpid(),
            uptime_s=round(time.monotonic() - self.started, 3),
            home=str(self.paths.home or self.paths.data_dir),
            db_path=str(self.engine.db_path),
            socket=str(self.paths.socket),
            entries=len(self.engine.index),  # O(1): clients call status on every connect
            model=p.ModelInfo(
                id=files.model_id,
                dim=self.engine.embedder.dim,
                path=str(files.model),
                sha256=files.model_sha256,
                source=files.source,
                runtime=str(files.runtime or files.model),
                long_runtime=str(files.long_runtime or files.model),
            ),
            sqlite_version=db.sqlite_version(),
            sqlite_vec_version=db.vec_version(self.engine.reader()),
            shared=sharing.roots(self.engine),
            redacts_secrets=self.engine.redactor is not None,
        )

    def handlers(self, loop: asyncio.AbstractEventLoop) -> dict[str, Handler]:
        def shutdown(_: p.ShutdownParams) -> p.ShutdownResult:
            loop.call_soon_threadsafe(self.stop.set)
            return p.ShutdownResult(stopping=True)

        handlers: dict[str, Handler] = dict(bind(self.engine))
        return handlers | {"status": self.status, "shutdown": shutdown}

    async def serve_connection(
        self, dispatcher: Dispatcher, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Serve one connection until it closes. Returns whether it sent a request: one
        that never did (refused, or silent) is no sign that anybody needs the daemon."""
        sock = writer.get_extra_info("socket")
        if sock is not None and not same_user(sock):
            log.warning("refused a connection from another user")
            writer.close()
            return False
        if self._open >= self.max_connections:
            await self._refuse(reader, writer)
            return False
        self._open += 1
        try:
            return await self._serve(dispatcher, reader, writer)
        finally:
            self._open -= 1

    async def _refuse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Say why, then close. The answer goes out first (id null: no request was read)
        and the client's first frame is awaited briefly, so that its send does not meet a
        closed socket and it reads the reason rather than a broken pipe. Only a few
        refusals wait at once: each holds a descriptor, and a flood must not take them."""
        n = self.max_connections
        log.warning("refused a connection: %d are open (daemon.max_connections)", n)
        error = TooLarge(
            f"the daemon already serves {n} connections, its limit (daemon.max_connections, "
            "lowered by the open-file limit); close some clients, or raise the limit and "
            "restart the daemon",
            {"reason": "connections", "limit": n},
        )
        waits = self._refusing < REFUSING
        self._refusing += 1
        try:
            writer.write(error_frame(None, error.code, error.message, error.data))
            await asyncio.wait_for(writer.drain(), REFUSE_SECONDS)
            if waits:
                await asyncio.wait_for(reader.read(1), REFUSE_SECONDS)
        except (ConnectionError, TimeoutError):
            pass
        finally:
            self._refusing -= 1
            writer.close()

    async def _serve(
        self, dispatcher: Dispatcher, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        used = False
        slots = asyncio.Semaphore(MAX_IN_FLIGHT_PER_CONNECTION)
        pending: set[asyncio.Task[None]] = set()
        session = Session(writer, self.engine.changes)

        async def answer(frame: bytes) -> None:
            try:
                with traffic.answering() as answered:  # background work steps aside
                    out = await dispatcher.handle(frame, session)
                    if out is not None:
                        await _sent(session.send(out), answered)
            except ConnectionError:
                pass  # the client went away; its write (if any) is committed regardless
            except Exception:
                log.exception("answering a request failed")
            finally:
                slots.release()

        me = asyncio.current_task()
        if me is not None:  # run() waits for every connection to finish its answers
            self._connections.add(me)
        # Reading races the stop: once stopping, no new frame is taken (so none is
        # committed without its answer going out), and an idle client does not hold us up.
        stopping = asyncio.ensure_future(self.stop.wait())
        try:
            while not self.stop.is_set():
                reading = asyncio.ensure_future(reader.readuntil(b"\n"))
                # The first frame is due within HANDSHAKE_SECONDS: a connection that sends
                # nothing would hold a slot, and an idling daemon, forever.
                await asyncio.wait(
                    {reading, stopping},
                    timeout=None if used else HANDSHAKE_SECONDS,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if not reading.done():
                    reading.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await reading
                    if not used and not self.stop.is_set():
                        log.info("closed a connection that sent nothing in %gs", HANDSHAKE_SECONDS)
                    break
                try:
                    frame = reading.result()
                except asyncio.IncompleteReadError as exc:
                    if exc.partial.strip():
                        used = True
                        await slots.acquire()
                        await answer(exc.partial)
                    break
                except asyncio.LimitOverrunError:
                    await session.send(
                        error_frame(
                            None,
                            TooLarge.code,
                            f"frame larger than {p.MAX_FRAME_BYTES} bytes; closing the connection",
                        )
                    )
                    break
                if not frame.strip():
                    continue
                used = True
                await slots.acquire()
                task = asyncio.create_task(answer(frame))
                pending.add(task)
                self._tasks.add(task)
                task.add_done_callback(pending.discard)
                task.add_done_callback(self._tasks.discard)
        except ConnectionError:
            pass
        finally:
            stopping.cancel()
            await session.close()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            if me is not None:
                self._connections.discard(me)
        return used

    async def _open_hook_endpoint(
        self, dispatcher: Dispatcher
    ) -> tuple[asyncio.base_events.Server, HookEndpoint] | None:
        """The loopback endpoint for Claude Code's http hooks, when configured. A port
        taken by another program is logged, not fatal: the socket still serves."""
        if self.hook_http is None:
            return None
        endpoint = HookEndpoint(*self.hook_http, dispatcher)
        try:
            server = await endpoint.start(self.idle.track)
        except OSError as exc:
            log.error("the hook endpoint cannot listen on 127.0.0.1:%d: %s", endpoint.port, exc)
            endpoint.close()
            return None
        log.info("answering http hooks on 127.0.0.1:%d", endpoint.port)
        return server, endpoint

    async def flush_bookkeeping_forever(self) -> None:
        await every(TOUCH_FLUSH_SECONDS, self._flush_and_trim, self.stop, last=True)

    def _flush_and_trim(self) -> None:
        """Bookkeeping written, and what the requests since the last flush freed given back
        to the OS (glibc keeps it otherwise: ~25 MB after 1,500 recalls at 100k; a trim
        costs 0.1-1 ms)."""
        with contextlib.suppress(EnyalError):
            if self.engine.flush_bookkeeping():
                heap.trim()

    async def backfill_passages(self) -> None:
        """Older long memories get their passages (service/upkeep/backfill.py), a step at a time
        with a pause between steps, until none are left; then this ends."""
        if self.engine.read_only:
            return
        await every(BACKFILL_PAUSE_SECONDS, self._backfill_step, self.stop, first=0)

    def _backfill_step(self) -> float | Done | None:
        try:
            more = backfill.step(self.engine)
        except EnyalError as exc:  # a full disk, say: try again later
            log.warning("could not give older memories their passages: %s", exc.message)
            return BACKFILL_RETRY_SECONDS
        return None if more else DONE

    async def merge_text_forever(self) -> None:
        """The keyword indexes merged into one segment each when a store's writes (or its
        bulk load) left them split (service/upkeep/text_merge.py): at start, then after
        writes, in quiet spells."""
        merge = TextMerge(self.engine)

        def step() -> float | None:
            try:
                return merge.step()
            except EnyalError as exc:  # a full disk, say: the index stays as it is for now
                log.warning("could not merge the keyword index: %s", exc.message)
                return None

        await every(TEXT_MERGE_SECONDS, step, self.stop, first=0)

    async def consolidate_forever(self, handlers: dict[str, Handler]) -> None:
        """Every `consolidate_every` seconds, once acknowledged writes have been quiet for
        QUIET_SECONDS (or half the interval, if shorter), a real consolidation through the
        verb's own handler."""
        if self.consolidate_every <= 0:
            return
        quiet = min(QUIET_SECONDS, self.consolidate_every / 2)

        def consolidate() -> float | None:
            quiet_for = time.monotonic() - self.engine.writer.last_write
            if quiet_for < quiet:
                return quiet - quiet_for  # not yet: again once it has been quiet so long
            try:
                r = handlers["consolidate"](consolidation.scheduled())
            except EnyalError as exc:
                log.warning("scheduled consolidation failed: %s", exc.message)
                return None
            log.info(
                "consolidated: %d merged into %d survivors, %d edges moved, %d expired removed",
                r.merged,
                len(r.clusters),
                r.edges_repointed,
                r.expired_removed,
            )
            return None

        await every(self.consolidate_every, consolidate, self.stop)

    async def run(self, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop.set)
        # Request work is mostly Python under one interpreter lock plus two inference slots:
        # more threads than cores + 2 only queue on the lock (measured: 8 -> 4 workers
        # raised 8-agent throughput ~15% and cut its p99 by a third).
        workers = (os.cpu_count() or 2) + 2
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="enyal-req") as pool:
            handlers = self.handlers(loop)
            dispatcher = Dispatcher(handlers, pool, self.engine.db_path)
            server = await asyncio.start_unix_server(
                lambda r, w: self.idle.track(self.serve_connection(dispatcher, r, w)),
                sock=sock,
                limit=p.MAX_FRAME_BYTES,
                # 3.13+ would unlink the socket file on close: main() decides that, because a
                # service manager's socket must outlive us.
                **_keep_socket_file(),
            )
            hooks = await self._open_hook_endpoint(dispatcher)
            flusher = asyncio.create_task(self.flush_bookkeeping_forever())
            consolidator = asyncio.create_task(self.consolidate_forever(handlers))
            backfiller = asyncio.create_task(self.backfill_passages())
            merger = asyncio.create_task(self.merge_text_forever())
            idler = asyncio.create_task(self.idle.run(self.stop))
            watcher = Watcher(self.engine, self.watch_debounce) if self.watch_debounce else None
            if watcher is not None:
                watcher.start()
            sharer = Sharer(self.engine)  # .enyal/ folders, both ways (service/files/sharer.py)
            sharer.start()
            hub = replica_of(self.engine)  # the team hub, when one is recorded (service/hub/)
            hub.start()
            log.info("enyal %s ready on %s (pid %d)", __version__, self.paths.socket, os.getpid())
            await self.stop.wait()
            notify("STOPPING=1")
            log.info(
                "stopping: no new connections; finishing %d in-flight requests", len(self._tasks)
            )
            server.close()
            sharer.stopping()  # its reads end now: a request in flight may wait for one
            if hooks is not None:
                hooks[0].close()
                hooks[1].close()
            # Each connection stops reading, answers what it has taken, and closes; a
            # request is never left half done (committed, but its answer cancelled).
            busy = self._connections | self._tasks
            if busy:
                await asyncio.wait(busy, timeout=30)
            if watcher is not None:  # before the writer drains: a run in progress finishes
                await loop.run_in_executor(None, watcher.stop)
            await loop.run_in_executor(None, sharer.stop)
            await loop.run_in_executor(None, hub.stop)
            await flusher
            await consolidator
            await backfiller
            await merger
            await idler
        self.engine.close()
        log.info("stopped cleanly")


def open_engine(paths: Paths, cfg: Config, clock: Clock = SYSTEM) -> Engine:
    files = locate(paths.data_dir)
    embedder = build8.load(files, paths.cache_dir)
    embedder.warm_up()  # each build's first run builds its kernels, not a client's request
    log.info(
        "model %s from %s (%s), running %s, and for long texts %s",
        files.model_id,
        files.model,
        files.source,
        embedder.files.runtime or "it as is",
        embedder.files.long_runtime or "it as is",
    )
    if not cfg.redact_secrets:
        log.warning("secret redaction is off (secrets.redact = false): credentials are stored")
    engine = Engine(
        paths.db,
        embedder,
        half_lives=cfg.half_lives,
        secrets=redaction.rules_from(cfg),
        redact=cfg.redact_secrets,
        clock=clock,
    )
    heap.trim()  # loading the index leaves ~50 MB of freed heap at 100k
    replica_of(engine)  # before any write: a change to a space's memory is captured
    return engine


def main(
    paths: Paths,
    idle_timeout: float | None = None,
    cfg: Config | None = None,
    clock: Clock = SYSTEM,
) -> int:
    """Run until stopped. idle_timeout: seconds without a connection before exiting (0 never);
    None means the config's daemon.idle_timeout when a service manager started us, else
    never. cfg: the configuration (loaded from the home when not given). clock: the
    engine's (service/rules/clock.py); only the test harness gives another."""
    inherited = inherited_socket()  # first: it clears LISTEN_* before anything can inherit them
    if inherited is not None and inherited.path is not None and inherited.path != paths.socket:
        log.warning(
            "%s passed the socket %s, but clients of this environment look for %s; "
            "reinstall the service (`enyal service install`) from the same environment",
            inherited.manager,
            inherited.path,
            paths.socket,
        )
        paths = paths._replace(socket=inherited.path)
    cfg = cfg or enyal_config.load(paths)
    if idle_timeout is None:
        idle_timeout = cfg.idle_timeout if inherited is not None else 0.0
    owns_socket = inherited is None
    # A daemon answering on the socket holds the pidfile: we exit at once. When socket-
    # activated the socket always "answers" (it is ours), and the service manager starts
    # one instance at a time, so we just wait.
    pid_lock = acquire_pidfile(
        paths.pid_file, holder_alive=lambda: owns_socket and answers(paths.socket)
    )
    db_lock: IO[bytes] | None = None
    try:
        db_lock = lock_database(paths)
        engine = open_engine(paths, cfg, clock)
        engine.embed("warm up")  # the first inference builds onnxruntime's kernels
        heap.freeze()  # what start-up built, out of the cyclic GC's way (issue 30)
        sock = (
            bind_socket(paths.socket, ours=paths.socket_dir_is_ours)
            if inherited is None
            else inherited.sock
        )
        # When we own the socket, it goes first on an idle exit: a client arriving then
        # starts a successor (which waits for our pidfile lock) instead of reaching us late.
        watch = IdleWatch(
            idle_timeout,
            before_exit=(lambda: _unlink_socket(paths.socket)) if owns_socket else None,
        )
        notify(f"READY=1\nSTATUS=serving on {paths.socket}\nMAINPID={os.getpid()}")
        try:
            every = cfg.consolidate_every_hours * 3600
            debounce = cfg.index_debounce if cfg.index_watch else None
            daemon = Daemon(
                paths,
                engine,
                idle=watch,
                consolidate_every=every,
                watch_debounce=debounce,
                max_connections=connection_cap(cfg.max_connections),
                hook_http=(cfg.hook_http_port, hook_token(paths)) if cfg.hook_http else None,
            )
            asyncio.run(daemon.run(sock))
        finally:
            if owns_socket:
                _unlink_socket(paths.socket)
    finally:
        # The database's lock goes first: a successor waiting on the pidfile must find the
        # database free once it has the pidfile.
        if db_lock is not None:
            db_lock.close()
        release_pidfile(paths.pid_file, pid_lock)
    return 0


def _keep_socket_file() -> dict[str, Any]:
    return {"cleanup_socket": False} if sys.version_info >= (3, 13) else {}


def _unlink_socket(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
