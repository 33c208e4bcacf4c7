// The Amber model's building blocks: the Arrow data plane (interning, IPC once per
// content, D0's base64-in-JSON state and its size formula), determinism, and the
// spec's [open] points as parameters.
import { describe, expect, it } from 'vitest';
import { checkDeterminism, check, drive, parseParams } from 'interleave';
import { base64Of, batchOfIpc, batchOfTable, d0FormulaBytes, inputTable, ipcOf, tableOf, valuesOf } from '../../../src/machines/amber/data.ts';
import { parseState, stateContent } from '../../../src/machines/amber/operators.ts';
import { amberScenario } from '../../../src/machines/amber/scenario.ts';
import { amberLoopFamily } from '../../../src/machines/amber/family.ts';
import { dataChannelScenario } from '../../../src/machines/amber/data-channel.ts';
import { runOnce } from '../../helpers/amber.ts';

describe('data plane', () => {
  it('interns batches by content: same rows, same object; IPC round-trips to the same batch', () => {
    const a = batchOfTable(inputTable(3));
    const b = batchOfTable(inputTable(3));
    expect(a).toBe(b);
    expect(ipcOf(a)).toBe(ipcOf(b));
    expect(batchOfIpc(ipcOf(a))).toBe(a);
    expect(batchOfTable(tableOf([a]).slice(1, 2))).toBe(batchOfTable(inputTable(3).slice(1, 2)));
    expect(valuesOf([a])).toEqual([1, 2, 3]);
  });

  it('D0 state content: base64 IPC inside JSON, 4⌈B/3⌉ + 49 bytes over the variables', () => {
    const t = batchOfTable(inputTable(3, 100));
    const content = stateContent({ i: 0 }, 'table-in-state', t);
    const B = ipcOf(t).byteLength;
    expect(content.length - JSON.stringify({ i: 0 }).length).toBe(d0FormulaBytes(B));
    expect(base64Of(t).length).toBe(4 * Math.ceil(B / 3));
    const back = parseState({ content, counter: 0, lsId: 'LS' });
    expect(back.vars).toEqual({ i: 0 });
    expect(back.table).toBe(t);
    expect(stateContent({ i: 0 }, 'read-at-endchannel', t)).toBe('{"i":0}');
  });
});

describe('determinism', () => {
  it('the same seed gives the same trace, byte for byte (D1 with faults, nested D2)', () => {
    expect(checkDeterminism(amberScenario(), 11).deterministic).toBe(true);
    expect(checkDeterminism(amberScenario({ design: 'read-at-endchannel', topology: 'nested', rows: 2 }), 5).deterministic).toBe(true);
  });
});

describe('[open] points as parameters', () => {
  it('missingKey=404: the reader gets NoSuchKey instead of AccessDenied on an F_recreate-deleted key, and still hangs silently', async () => {
    const r = await check(amberScenario({ design: 'read-at-endchannel', overlapFault: false, recreateFault: true, missingKey: '404' }), { strategy: 'bfs' });
    expect(r.violation!.property.message).toMatch(/next fetch gets 404/);
  });

  it('holdOrder: the only pre-consume error (lost envelope) implies an empty stash, so both orders give the same outcome', () => {
    const a = runOnce({ design: 'read-at-endchannel', bodyState: 'blank', holdOrder: 'consume-first' });
    const b = runOnce({ design: 'read-at-endchannel', bodyState: 'blank', holdOrder: 'hold-first' });
    expect(a.q.context('coordinator').errors).toEqual(b.q.context('coordinator').errors);
    expect(a.emits('amber.read-start')).toEqual([]);
    expect(b.emits('amber.read-start')).toEqual([]);
  });
});

describe('data channel (the seed benchmark as actors)', () => {
  for (const wire of [false, true]) {
    it(`echoes every batch through the identity UDF (${wire ? 'IPC' : 'by reference'})`, () => {
      const sc = dataChannelScenario({ batchSize: 10, schemaWidth: 10, stringLength: 64, batches: 20, warmup: 5, wire });
      const r = drive(sc, (_w, s) => s[0]);
      expect(r.end).toBe('quiescent');
      const worker = r.world.snaps[sc.index.get('worker')!] as any;
      expect(worker.context.tuples).toBe(250);
      expect(r.events.filter((e) => e.kind === 'deliver' && e.to === 'driver' && e.msg.type === 'DataFrame').length).toBe(25);
    });
  }
});

describe('simulate (virtual time under the cost model)', () => {
  it('all three designs complete; with a wide table and two hops D0 costs more virtual time than D2', () => {
    const p = parseParams(amberLoopFamily, { payloadBytes: '200000', bodyHops: '2' });
    const rep = amberLoopFamily.simulate!(p, { seed: 1 });
    const rows = rep.tables[0]!.rows;
    expect(rows.map((r) => r[0])).toEqual(['table-in-state', 'read-at-consume', 'read-at-endchannel']);
    expect(rows.every((r) => r[1] === 'completed')).toBe(true);
    const ms = Object.fromEntries(rows.map((r) => [r[0], Number(r[3])]));
    expect(ms['table-in-state']).toBeGreaterThan(ms['read-at-endchannel']!);
  });
});
