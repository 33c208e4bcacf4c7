// The monitors are not vacuous: fed the event sequences of known bugs they fail with
// the property's message, and fed a correct run's trace they stay quiet.
import { describe, expect, it } from 'vitest';
import { queryOf, type MonitorDef, type TraceEvent } from 'interleave';
import { portBase, stateUri } from '../../../src/machines/amber/messages.ts';
import { amberProperties } from '../../../src/machines/amber/properties.ts';
import { workflowOf, DEFAULT_PARAMS, amberScenario, type AmberParams } from '../../../src/machines/amber/scenario.ts';
import { runOnce } from '../../helpers/amber.ts';

function monitor(name: string, p: Partial<AmberParams> = {}): MonitorDef {
  const params = { ...DEFAULT_PARAMS, design: 'read-at-endchannel' as const, designChecks: true, ...p };
  const m = amberProperties(params, workflowOf(params)).monitors![name];
  if (!m) throw new Error(`no monitor ${name}`);
  return m;
}

/** Feeds events in order; returns the first failure message, or undefined. */
function feed(m: MonitorDef, events: readonly TraceEvent[], q: any = undefined): string | undefined {
  let s = m.init;
  for (const e of events) {
    const r = m.observe(s, e, q);
    if (r && typeof r === 'object' && 'fail' in r) return (r as { fail: string }).fail;
    s = r;
  }
  return undefined;
}

const emit = (type: string, op: string, extra: Record<string, unknown> = {}): TraceEvent => ({ kind: 'emit', actor: op, msg: { type, op, exec: 1, ...extra } });
const send = (from: string, to: string, type: string): TraceEvent => ({ kind: 'send', from, to, msg: { type } });

describe('monitors catch the bugs they are for', () => {
  it('I3: run_update before EndChannel alignment; a second read in one execution', () => {
    const m = monitor('I3/I10 deferred consume placement and dedup');
    expect(feed(m, [emit('amber.start', 'LE'), emit('amber.update', 'LE')])).toMatch(/I3: LE ran run_update before EndChannel was aligned/);
    expect(feed(m, [emit('amber.start', 'LE'), emit('amber.aligned', 'LE'), emit('amber.read-start', 'LE'), emit('amber.read-start', 'LE')])).toMatch(/I3\/I10: LE ran 2 read/);
    expect(feed(m, [emit('amber.start', 'LE'), emit('amber.aligned', 'LE'), send('LE', 'coordinator', 'PortCompleted'), emit('amber.update', 'LE')])).toMatch(/after sending PortCompleted/);
  });

  it('I10: two stashes in one execution (the #7246 double consume)', () => {
    const m = monitor('I3/I10 deferred consume placement and dedup');
    expect(feed(m, [emit('amber.start', 'LE'), emit('amber.stash', 'LE'), emit('amber.stash', 'LE')])).toMatch(/I10: LE stashed 2 copies/);
  });

  it('I5: an update without a fresh attach', () => {
    const m = monitor('I5 one attach per update');
    expect(feed(m, [emit('amber.start', 'LE'), emit('amber.attach', 'LE'), emit('amber.update', 'LE'), emit('amber.update', 'LE')])).toMatch(/I5/);
  });

  it('I6: truncating S_in before the jump RPC; WorkerExecutionCompleted before the back-edge commit', () => {
    const m = monitor('I6/I7 back-edge order and truncation');
    const sIn = stateUri(portBase('Src'));
    const create: TraceEvent = { kind: 'io', actor: 'store', op: 'create', key: sIn, outcome: 'ok', detail: { by: 'LE', gen: 2 } };
    expect(feed(m, [create])).toMatch(/I6: LE truncated Src.out\/state before sending JumpToOperatorRegion/);
    expect(feed(m, [send('LE', 'coordinator', 'JumpToOperatorRegion'), create, send('LE', 'coordinator', 'WorkerExecutionCompleted')])).toMatch(/I6: LE sent WorkerExecutionCompleted before its back-edge write was committed/);
  });

  it('I7: the loop runtime writing R_in', () => {
    const m = monitor('I6/I7 back-edge order and truncation');
    expect(feed(m, [{ kind: 'io', actor: 'store', op: 'commit', key: 'vfs:///wid/1/eid/1/globalportid/(logicalOpId=Src,layerName=main,portId=0,isInternal=false,isInput=false)/result', outcome: 'ok', detail: { by: 'LE' } }])).toMatch(
      /I7: LE wrote LS's loop input table Src.out\/result/,
    );
  });

  it('I9: a JVM hop that changes the envelope; a Loop End consuming another loop\'s state', () => {
    const m = monitor('I9 envelope routing', { topology: 'jvm-chain' });
    expect(feed(m, [emit('amber.route', 'Limit', { kind: 'jvm', action: 'pass', in: [0, 'LS'], out: [0, ''] })])).toMatch(/I9: Limit \(jvm\) pass of \(0, 'LS'\)/);
    expect(feed(m, [emit('amber.route', 'LE', { kind: 'loopEnd', action: 'consume', in: [0, 'XS'], out: null })])).toMatch(/consumes only its own loop's state \(0, 'LS'\)/);
  });

  it("I11: PortCompleted after a failed read", () => {
    const m = monitor('I11 no false success');
    expect(feed(m, [emit('amber.start', 'LE'), emit('amber.error', 'LE', { where: 'read' }), send('LE', 'coordinator', 'PortCompleted')])).toMatch(/I11: LE sent PortCompleted after reporting an error/);
  });

  it('stay quiet on a correct nested run', () => {
    const run = runOnce({ design: 'read-at-endchannel', topology: 'nested', rows: 2 });
    const sc = amberScenario({ design: 'read-at-endchannel', topology: 'nested', rows: 2, designChecks: true });
    const q = queryOf(sc, run.q.world);
    for (const [name, m] of Object.entries(sc.monitors!)) expect(feed(m, run.events, q), name).toBeUndefined();
  });
});
