// The Airflow model (src/machines/airflow) live on SQLite: a live run's recording
// replays on the model with every property checked (the modelled supervisor and
// runner answer for themselves), and the schedules one fault away from it hold.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAirflowTask } from '../../examples/iterable-task/airflow.ts';
import { readTaskDb } from '../../examples/iterable-task/live.ts';
import { AIRFLOW_SCOPE as SCOPE, buildAirflow } from 'interleave/machines';
import { MARKER_KEY, batchKey } from '../../src/machines/airflow/config.ts';
import { fromTrace, replayTraceFile } from 'interleave';
import { liveTraceFile } from 'interleave/live';

const dir = mkdtempSync(join(tmpdir(), 'interleave-airflow-live-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Airflow checkpoints live on SQLite', () => {
  it('runs to success, writes ceil(N/W) batches then the marker, and a second try reruns nothing', async () => {
    const db = join(dir, 'a.db');
    const first = startAirflowTask({ n: 37, w: 4, db });
    expect(await first.finished).toBe('success');
    await first.close();
    const s = readTaskDb(db, SCOPE);
    expect(Object.keys(s.kv).filter((k) => k.startsWith('_iterable_batch_')).length).toBe(Math.ceil(37 / 4));
    expect(JSON.parse(s.kv[MARKER_KEY]!)).toMatchObject({ completed: true, try_number: 1 });
    expect(s.runs.length).toBe(37);
    const second = startAirflowTask({ n: 37, w: 4, db });
    expect(second.attempt).toBe(2);
    expect(await second.finished).toBe('success');
    await second.close();
    expect(readTaskDb(db, SCOPE).runs.length).toBe(37);
  });

  it('a live recording replays on the model with every property checked, and one fault away it still holds', async () => {
    const db = join(dir, 'b.db');
    const t = startAirflowTask({ n: 6, w: 2, db, record: true });
    expect(await t.finished).toBe('success');
    await t.system.whenQuiescent();
    const file = liveTraceFile(t.system.recording());
    await t.close();
    expect(file.options.externals).toEqual(['supervisor', 'runner']);
    const model = buildAirflow({ items: 6, W: 2, staleGuard: true, markerGuard: true });
    const rep = replayTraceFile(model, file);
    expect(rep.violation).toBeUndefined();
    expect(rep.trace.filter((e) => e.kind === 'output' && e.msg.type === 'End')).toHaveLength(1);
    // The model's own store holds what SQLite held.
    const stored = Object.keys((rep.world.snaps[model.index.get('supervisor')!] as { ts: { rows: Record<string, unknown> } }).ts.rows);
    expect(stored.some((id) => id.includes(batchKey(2)))).toBe(true);
    for (const faults of [{ writeError: true }, { hardKill: true }]) {
      const sc = buildAirflow({ items: 6, W: 2, staleGuard: true, markerGuard: true, faultBudget: 1, ...faults });
      const r = fromTrace(sc, file, { within: 1 });
      expect(r.ok, r.violation?.property.message).toBe(true);
      expect(r.complete).toBe(true);
      expect(r.stats.distinctStates).toBeGreaterThan(r.seedLength);
    }
  });
});
