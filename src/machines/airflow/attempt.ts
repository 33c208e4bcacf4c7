// The task process of one attempt (IterableOperator.execute), as a pure step
// function: phase A reads the checkpoints, phase B is the event loop with at most
// W indexed tasks in flight (results in completion order, fail-fast, stop flag),
// phase C writes the rest then the marker with sync calls, phase D concludes.
// The checkpoint writer, the reader and the request channel are components of
// this one process: a hard kill takes them all at once, and the loop calls them
// synchronously, so they are not separate actors (see docs/airflow.md).
//
// This file is the attempt driver: the process's entry points, one per event. Each
// phase lives in its own file (checkpoint-reader.ts: A, task-loop.ts: B,
// task-close.ts: C and D) over the context and step of task-ctx.ts; a response is
// routed here to the phase that made the request it answers.
import type { AirflowConfig } from './config.ts';
import { release, type Req } from './channel.ts';
import { Step, type Out, type Resp, type TaskCtx } from './task-ctx.ts';
import { onReadResp } from './checkpoint-reader.ts';
import { onLoopResp, pull } from './task-loop.ts';
import { maybeClose, onCloseResp } from './task-close.ts';
import { onLeaseLost } from './task-lease.ts';

export { initialTask, type Co, type Fate, type Out, type Phase, type Resp, type TaskCtx } from './task-ctx.ts';
export { onStart } from './checkpoint-reader.ts';
export { onReplay, onRunEnd, onSigTerm } from './task-loop.ts';

export function onResponse(c: TaskCtx, cfg: AirflowConfig, resp: Resp): { c: TaskCtx; out: Out[] } {
  if (resp.a !== c.a || c.phase === 'exited' || c.phase === 'idle' || c.ch.holder === null) return { c, out: [] };
  if (resp.error === 'LeaseLost') return onLeaseLost(c, cfg);
  const s = new Step(c, cfg);
  const r = c.ch.holder;
  if (r.rid !== resp.rid) s.log('response crossed with another request (H5)', { expected: r.rid, got: resp.rid });
  const orphan = c.ch.orphan;
  const rel = release(c.ch);
  s.set({ ch: rel.ch });
  if (rel.out) s.wire(rel.out);
  if (!orphan) dispatch(s, r, resp);
  maybeClose(s);
  return { c: s.c, out: s.out };
}

function dispatch(s: Step, r: Req, resp: Resp): void {
  switch (r.role) {
    case 'marker-read':
    case 'since-set':
    case 'probe-read':
    case 'batch-read':
    case 'all-read':
      onReadResp(s, r, resp);
      return;
    case 'index-read':
      if (s.c.phase === 'reading') return onReadResp(s, r, resp);
      onLoopResp(s, r, resp);
      break;
    case 'ckpt':
    case 'push':
    case 'round':
      onLoopResp(s, r, resp);
      break;
    case 'rest':
    case 'marker-set':
      onCloseResp(s, r, resp);
      break;
  }
  pull(s);
}
