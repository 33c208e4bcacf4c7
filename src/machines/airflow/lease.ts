// The task's lease, as the supervisor's store keeps it (the model of
// src/storage/live/sqlite-lease.ts; on with `lease: true`). A task process asks for
// the lease before it says Hello; it is granted when free, else the process waits
// (the live example's --wait). Every grant is a new fencing token; the process's
// state-store writes and XCom pushes carry it, and a write with another token than
// the current one is refused (LeaseLost) without effect. A held lease expires when
// the lease clock says so (lease-clock.ts: a timer that may fire at any moment, a
// holder that missed its heartbeats, crashed or paused); the next waiter then gets
// it. A process releases it when its try ends.
import type { Message } from '../../actors/index.ts';

export interface LeaseState {
  /** The current fencing token (0: never granted). */
  readonly token: number;
  /** The process holding it, or null (free: released or expired). */
  readonly holder: string | null;
  /** Processes waiting for it, in arrival order. */
  readonly waiting: readonly string[];
}

export const NO_LEASE: LeaseState = { token: 0, holder: null, waiting: [] };

type Send = { readonly to: string; readonly msg: Message };

/** The next waiter gets the lease: a new token, its grant, and the clock armed for it. */
function grantNext(l: LeaseState): { lease: LeaseState; send: Send[] } {
  const [next, ...rest] = l.waiting;
  if (next === undefined || l.holder !== null) return { lease: l, send: [] };
  const token = l.token + 1;
  return {
    lease: { token, holder: next, waiting: rest },
    send: [
      { to: next, msg: { type: 'LeaseGranted', token } },
      { to: 'leaseClock', msg: { type: 'Arm', token } },
    ],
  };
}

/** One lease request (AcquireLease, ReleaseLease, LeaseExpired); undefined for any other message. */
export function onLease(l: LeaseState, msg: Message, from: string): { lease: LeaseState; send: Send[]; note?: string } | undefined {
  switch (msg.type) {
    case 'AcquireLease':
      // A restarted process is a new owner even under the same actor id: it waits like any other.
      return grantNext({ ...l, waiting: [...l.waiting, from] });
    case 'ReleaseLease': {
      if (msg.token !== l.token || l.holder === null) return { lease: l, send: [] };
      const r = grantNext({ ...l, holder: null });
      return { ...r, send: [{ to: 'leaseClock', msg: { type: 'Disarm', token: msg.token } }, ...r.send] };
    }
    case 'LeaseExpired': {
      if (msg.token !== l.token || l.holder === null) return { lease: l, send: [] };
      const r = grantNext({ ...l, holder: null });
      return { ...r, note: `lease ${l.token} of '${l.holder}' expired` };
    }
    default:
      return undefined;
  }
}

/** Whether a write carrying `token` is refused: a lease was granted since (token 0: the model without a lease). */
export function fenced(l: LeaseState | null, msg: Message): boolean {
  return l !== null && msg.token !== l.token;
}
