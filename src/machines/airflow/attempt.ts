// The task process of one attempt (IterableOperator.execute), as pure steps the
// chart of task-process.ts calls: phase A reads the checkpoints, phase B is the
// event loop with at most W indexed tasks in flight (results in completion order,
// fail-fast, stop flag), phase C writes the rest then the marker with sync calls,
// phase D concludes. The checkpoint writer, the reader and the request channel are
// components of this one process: a hard kill takes them all at once, and the loop
// calls them synchronously, so they are not separate actors (see docs/airflow.md).
//
// Each phase lives in its own file (checkpoint-reader.ts: A, task-loop.ts: B,
// task-close.ts: C and D) over the context and step of task-ctx.ts. This file
// answers a response: the channel hands the lock on, and the response goes to the
// phase the chart is in, which made the request it answers.
import type { AirflowConfig } from './config.ts';
import { release } from './channel.ts';
import { Step, type Out, type Resp, type TaskCtx } from './task-ctx.ts';
import { onReadResp } from './checkpoint-reader.ts';
import { onLoopResp, pull } from './task-loop.ts';
import { onCloseResp } from './task-close.ts';

export { initialTask, type Co, type Fate, type Out, type Resp, type TaskCtx } from './task-ctx.ts';
export { beginTry } from './checkpoint-reader.ts';
export { enterLoop, onReplay, onRunEnd, onSigTerm } from './task-loop.ts';
export { awaiting, conclude, drained, writeMarker, writeRest } from './task-close.ts';

/** The phase a response arrives in (the chart's state). */
export type Where = 'reading' | 'looping' | 'closing';

/** A response frame as the process reads it (a missing key is an answer without a value). */
export function respOf(e: { type: string; a: number; rid: number; value?: unknown; error?: string }): Resp {
  if (e.type === 'TaskStateStoreResult') return { a: e.a, rid: e.rid, value: e.value };
  if (e.type === 'ErrorResponse' && e.error !== 'TASK_STORE_NOT_FOUND') return { a: e.a, rid: e.rid, error: String(e.error) };
  return { a: e.a, rid: e.rid };
}

/** The response answers the request holding the channel in this try (a stale one, of a dead try, does not). */
export function answersHolder(c: TaskCtx, resp: Resp): boolean {
  return resp.a === c.a && c.ch.holder !== null;
}

export function onResponse(c: TaskCtx, cfg: AirflowConfig, resp: Resp, where: Where): { c: TaskCtx; out: Out[] } {
  if (!answersHolder(c, resp)) return { c, out: [] };
  const s = new Step(c, cfg);
  const r = c.ch.holder!;
  if (r.rid !== resp.rid) s.log('response crossed with another request (H5)', { expected: r.rid, got: resp.rid });
  const orphan = c.ch.orphan;
  const rel = release(c.ch);
  s.set({ ch: rel.ch });
  if (rel.out) s.wire(rel.out);
  if (orphan) return s.done();
  if (where === 'reading') onReadResp(s, r, resp);
  else if (where === 'closing') onCloseResp(s, r, resp);
  else {
    onLoopResp(s, r, resp);
    pull(s);
  }
  return s.done();
}
