// What both ends of a world transfer hold without sending it: the scenario's digest, and
// a deterministic numbering of the initial world's and the scenario's objects (so those
// objects keep their identity across processes instead of arriving as copies).
import type { AnyMachineSnapshot } from 'xstate';
import type { Scenario } from '../../actors/scenario.ts';
import type { World } from '../../actors/types.ts';
import { isAddressStub } from '../../actors/xstate-adapter.ts';

export function mixBytes(h: number, b: Uint8Array): number {
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h >>> 0;
}

/**
 * Every object of a world's values and of `roots`, in a deterministic order (depth first,
 * keys in order), and a digest of what the walk met (keys, primitives, shapes), so two
 * ends can tell that their numberings agree. Cycle-safe; functions count by name.
 */
export function worldObjects(sc: Scenario, w: World, roots: unknown): { objects: object[]; strings: string[]; digest: number } {
  const out: object[] = [];
  const strings = new Set<string>();
  const seen = new Map<object, number>();
  let h = 0x811c9dc5;
  const mix = (text: string): void => {
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0xff, 0x01000193);
  };
  const visit = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) {
      if (typeof v === 'string' && v.length <= 256) strings.add(v);
      mix(`${typeof v}:${typeof v === 'function' ? (v as { name: string }).name : String(v)}`);
      return;
    }
    const at = seen.get(v);
    if (at !== undefined) return mix(`@${at}`);
    if (isAddressStub(v)) return mix(`stub:${v.id}`);
    seen.set(v, out.length);
    out.push(v);
    const proto = Object.getPrototypeOf(v);
    mix(Array.isArray(v) ? `[${v.length}` : `{${proto === null ? 'null' : String((proto as { constructor?: { name?: string } }).constructor?.name)}`);
    if (Array.isArray(v)) for (const x of v) visit(x);
    else if (v instanceof Map) {
      for (const [k, x] of v) {
        visit(k);
        visit(x);
      }
    }
    else if (v instanceof Set) for (const x of v) visit(x);
    else if (proto === Object.prototype || proto === null) {
      for (const k of Object.keys(v)) {
        strings.add(k);
        mix(k);
        visit((v as Record<string, unknown>)[k]);
      }
    }
  };
  w.snaps.forEach((s, i) => {
    if (sc.actorList[i]!.kind === 'machine' && typeof s === 'object' && s !== null && 'machine' in s) {
      const snap = s as AnyMachineSnapshot;
      visit(snap.context);
      visit(snap.output);
      visit(snap.error);
    } else visit(s);
  });
  for (const chs of w.inbox) for (const ch of chs) for (const m of ch.queue) visit(m);
  for (const t of w.timers) visit(t.event);
  for (const m of w.monitors) visit(m);
  visit(roots);
  return { objects: out, strings: [...strings], digest: h >>> 0 };
}

export function digestOf(sc: Scenario): number {
  const text = [sc.name, ...sc.actorList.map((a) => `${a.id}:${a.kind}`), '|', ...sc.monitorNames, `|${sc.inputSlots}`].join('\u0000');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
