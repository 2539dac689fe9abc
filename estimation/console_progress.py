"""Progress of a long analysis on a console: the stage and fraction the pages show.

``analyze()`` reports ``progress(stage, fraction)`` as it moves through its stages
(ranking, estimators, tests, within_dataset, bootstrap, evaluation, advisor); the recompute service
stores them on the snapshot for the pages, and ``manage.py analyze`` shows them here on
standard error. Nothing is shown for a run shorter than ``delay`` seconds. On a terminal
one line is redrawn in place, also while a long stage runs, so its elapsed time moves;
elsewhere (a pipe, a log file) one plain line is written per stage as it starts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType

BAR_WIDTH = 24


class ConsoleProgress:
    """A ``progress(stage, fraction)`` callback that writes to a console after a delay.

    Use as a context manager around the work; ``write`` receives the text to show (no
    newline is added), ``terminal`` says whether it may redraw a line with a carriage
    return.
    """

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        terminal: bool,
        delay: float = 1.5,
        interval: float = 0.25,
        label: str = "analyze",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write = write
        self._terminal = terminal
        self._delay = delay
        self._interval = interval
        self._label = label
        self._clock = clock
        self._started = clock()
        self._state: tuple[str, float] = ("loading", 0.0)
        self._last_written: tuple[str, float] | None = None
        self._shown = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def shown(self) -> bool:
        """Whether anything has been written."""
        return self._shown

    def __call__(self, stage: str, fraction: float) -> None:
        previous = self._state[0]
        self._state = (stage, min(max(float(fraction), 0.0), 1.0))
        if stage != previous:
            self.tick()  # a new stage is shown when it starts, not at the next redraw

    def __enter__(self) -> ConsoleProgress:
        self._started = self._clock()
        self.tick()
        self._thread = threading.Thread(target=self._run, name="console-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.finish(failed=exc_type is not None)

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.tick()

    def tick(self) -> None:
        """Write the current state if the run has lasted long enough."""
        with self._lock:
            elapsed = self._clock() - self._started
            if elapsed < self._delay:
                return
            state = self._state
            if self._terminal:
                self._write("\r" + self._line(state, elapsed) + "\x1b[K")
            elif state != self._last_written:
                self._write(self._line(state, elapsed) + "\n")
            self._last_written, self._shown = state, True

    def finish(self, *, failed: bool = False) -> None:
        """End the display: a closing line if anything was shown, nothing otherwise."""
        with self._lock:
            if not self._shown:
                return
            elapsed = self._clock() - self._started
            if failed:
                # Leave the last state visible and let the error start on a fresh line.
                self._write("\n" if self._terminal else "")
                return
            done = ("done", 1.0)
            if self._terminal:
                self._write("\r" + self._line(done, elapsed) + "\x1b[K\n")
            elif self._last_written != done:
                self._write(self._line(done, elapsed) + "\n")

    def _line(self, state: tuple[str, float], elapsed: float) -> str:
        stage, fraction = state
        percent = f"{round(100 * fraction):3d}%"
        if self._terminal:
            filled = round(BAR_WIDTH * fraction)
            bar = "[" + "#" * filled + "-" * (BAR_WIDTH - filled) + "] "
        else:
            bar = ""
        return f"{self._label}: {bar}{percent} {stage} ({elapsed:.1f} s)"
