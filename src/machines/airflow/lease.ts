// The task's lease as the state store keeps it: the model of
// src/storage/live/sqlite-lease.ts, on with `lease: true`. A task process asks for
// the lease before it says Hello (AcquireLease); the store grants it when free, with
// a new fencing token, or answers LeaseHeld. A waiting process polls again when its
// timer ends (the live `--wait`); by then the holder either released the lease (it
// is free), or it missed its heartbeats (crashed, or paused: a zombie) and its lease
// expired: the poll names the token it waited on (`after`), and the store lets it
// take over. Renewals are not modelled: a poll that finds the holder alive would
// leave the world as it was, so the timer ending later covers it.
//
// Fencing: a process's state-store writes and XCom pushes carry its token; the store
// refuses (LeaseLost, nothing written) a write whose token is not the current one, as
// `checkFence` does in the same transaction as the live write. Reads are not fenced.
import type { Message, TraceEvent } from '../../actors/index.ts';

export interface LeaseState {
  /** The current fencing token (0: never granted). */
  readonly token: number;
  /** The process holding it, or null (released; the token stays, as in the live row). */
  readonly holder: string | null;
}

export const NO_LEASE: LeaseState = { token: 0, holder: null };

type Send = { readonly to: string; readonly msg: Message };
export interface LeaseStep {
  readonly lease: LeaseState;
  readonly send: readonly Send[];
  readonly events: readonly TraceEvent[];
}

const io = (self: string, op: string, holder: string, token: number, outcome: string): TraceEvent => ({ kind: 'io', actor: self, op, key: holder, outcome, detail: { token } });

function grant(l: LeaseState, to: string, self: string, expired: readonly TraceEvent[]): LeaseStep {
  const token = l.token + 1;
  return { lease: { token, holder: to }, send: [{ to, msg: { type: 'LeaseGranted', token } }], events: [...expired, io(self, 'lease.grant', to, token, 'granted')] };
}

/** One lease request (AcquireLease, ReleaseLease); undefined for any other message. */
export function onLease(l: LeaseState, msg: Message, from: string, self: string): LeaseStep | undefined {
  if (msg.type === 'AcquireLease') {
    if (l.holder === null) return grant(l, from, self, []);
    // The poll of a process that waited out this very lease: its holder missed its heartbeats.
    if (msg.after === l.token) return grant(l, from, self, [io(self, 'lease.expire', l.holder, l.token, 'expired')]);
    // Held (a restarted process is a new owner even under the same actor id).
    return { lease: l, send: [{ to: from, msg: { type: 'LeaseHeld', token: l.token } }], events: [] };
  }
  if (msg.type === 'ReleaseLease') {
    // A lease taken over meanwhile is left alone (the live release matches the token too).
    if (msg.token !== l.token || l.holder === null) return { lease: l, send: [], events: [] };
    return { lease: { token: l.token, holder: null }, send: [], events: [io(self, 'lease.release', from, l.token, 'released')] };
  }
  return undefined;
}

/** Whether a write carrying the token of `msg` is refused: another token is current. */
export function fenced(l: LeaseState, msg: Message): boolean {
  return (msg.type === 'SetTaskStateStore' || msg.type === 'SetXCom') && msg.token !== l.token;
}
