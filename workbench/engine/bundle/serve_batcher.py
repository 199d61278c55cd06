"""How serve.py shares its predictors among requests: one asyncio task per predictor takes
jobs from one queue and runs the model in a thread of its own, so the event loop stays free
while the model works. Classification jobs that wait are joined into one batch; generation
jobs take the model one at a time, their pieces streamed back as they decode."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor


class _Cancelled(Exception):
    pass


class Job:
    """One unit of work for the model: records to classify, or one record to answer."""

    def __init__(self, records, options=None, stream=False):
        self.records, self.options = records, options or {}
        self.future = asyncio.get_running_loop().create_future()
        self.pieces = asyncio.Queue() if stream else None
        self.cancelled = self.include_usage = False


class Batcher:
    """One asyncio task per predictor, each taking jobs from one queue and running the
    model in a thread of its own (the event loop stays free while the model works)."""

    def __init__(self, predictors, max_batch, batch_size, batch_wait_s):
        self.task = predictors[0].task
        self.max_batch, self.batch_size, self.batch_wait_s = max_batch, batch_size, batch_wait_s
        self.predictors = predictors
        self.jobs = None
        self.tasks = []

    def start(self):
        self.loop = asyncio.get_running_loop()
        self.jobs = asyncio.Queue()
        for i, predictor in enumerate(self.predictors):
            executor = ThreadPoolExecutor(1, thread_name_prefix=f"model-{i}")
            self.tasks.append(self.loop.create_task(self._serve(predictor, executor)))

    def submit(self, job):
        self.jobs.put_nowait(job)
        return job

    async def _serve(self, predictor, executor):
        carry = None
        while True:
            first, carry = carry or await self.jobs.get(), None
            if self.task != "classification":
                await self._generate(predictor, executor, first)
                continue
            if self.batch_wait_s > 0 and len(first.records) < self.max_batch:
                await asyncio.sleep(self.batch_wait_s)
            batch, n = [first], len(first.records)
            while not self.jobs.empty():  # whatever else waits, up to max_batch inputs
                job = self.jobs.get_nowait()
                if n + len(job.records) > self.max_batch:
                    carry = job
                    break
                batch.append(job)
                n += len(job.records)
            await self._classify(predictor, executor, batch)

    def _sorted_classify(self, predictor, records):
        # similar lengths side by side, so each predictor run pads little (right padding does
        # not change a row's result beyond rounding: the graph is causal)
        order = sorted(range(len(records)), key=lambda i: sum(len(v) for v in records[i].values()))
        ranked = predictor.classify([records[i] for i in order], batch_size=self.batch_size)
        results = [None] * len(records)
        for i, result in zip(order, ranked):
            results[i] = result
        return results

    async def _classify(self, predictor, executor, jobs):
        records = [r for job in jobs for r in job.records]
        try:
            results = await self.loop.run_in_executor(executor, self._sorted_classify, predictor, records)
        except Exception as exc:  # reported to each waiting request as a 500 without a traceback
            for job in jobs:
                if not job.future.done():
                    job.future.set_exception(exc)
            return
        start = 0
        for job in jobs:
            if not job.future.done():
                job.future.set_result(results[start:start + len(job.records)])
            start += len(job.records)

    async def _generate(self, predictor, executor, job):
        def stream(piece):  # in the model's thread
            if job.cancelled:
                raise _Cancelled()
            self.loop.call_soon_threadsafe(job.pieces.put_nowait, piece)

        def run():
            try:
                return predictor.generate_full(job.records[0], stream=stream if job.pieces is not None else None,
                                               **job.options)
            except _Cancelled:
                return None

        try:
            result = await self.loop.run_in_executor(executor, run)
        except Exception as exc:
            if not job.future.done():
                job.future.set_exception(exc)
        else:
            if not job.future.done():
                job.future.set_result(result)
        if job.pieces is not None:
            job.pieces.put_nowait(None)
