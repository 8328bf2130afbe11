"""Stopping a component's background tasks, written once (modelled on procrastinate's
`utils.cancel_and_capture_errors`, used by its `Worker._shutdown`).

Every component's `stop()` hands its tasks here: each is cancelled, all are awaited together,
and a task that had failed is logged with its traceback. A stop therefore never swallows a
failure silently and never raises one at its caller (who is usually stopping something
else next); only the caller's own cancellation goes through.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

logger = logging.getLogger("autohost.tasks")


async def cancel_and_wait(
    tasks: Iterable[asyncio.Future[Any] | None], *, log: logging.Logger = logger
) -> None:
    """Cancel every task (None is skipped), wait until all have ended, log their failures.

    The current task, if listed, is neither cancelled nor awaited (a task may stop the
    component that owns it). If the caller is cancelled while waiting, the tasks stay
    cancelled and the caller's cancellation propagates.
    """
    current = asyncio.current_task()
    pending = [task for task in dict.fromkeys(tasks) if task is not None and task is not current]
    if not pending:
        return
    for task in pending:
        task.cancel()
    await asyncio.wait(pending)
    for task in pending:
        if task.cancelled():
            continue
        error = task.exception()
        if error is not None:
            name = task.get_name() if isinstance(task, asyncio.Task) else repr(task)
            log.error("%s failed: %r", name, error, exc_info=error)
