// Where each step of a counterexample found around a recording comes from: its recorded
// position, or the kind of deviation (the marks `check --from` prints and saves).
import { describe, expect, it } from 'vitest';
import { recordedOrigins } from '../../../src/check/trace/recorded.ts';
import { counter } from '../../live/counter-model.ts';

const sc = counter.build({ head: false, format: 'compact', start: 0 });
const file = (schedule: string[]) => ({ options: {}, schedule, inputs: [] });
const rec = ['tick:2', 'deliver:w1->store:s3.get', 'deliver:store->w1:s3.get.ok', 'timer:w2:t', 'deliver:w2->store:s3.get', 'input:env->w1:poke'];

describe('recordedOrigins', () => {
  it('in the recorded order: every step has its file position (ticks count), no deviation', () => {
    expect(recordedOrigins(sc, file(rec), rec.slice(1))).toEqual([{ recorded: 2 }, { recorded: 3 }, { recorded: 4 }, { recorded: 5 }, { recorded: 6 }]);
  });

  it('a timer moved before recorded steps fired early; a step moved before it is a reorder and the timer then fired late', () => {
    const early = recordedOrigins(sc, file(rec), ['deliver:w1->store:s3.get', 'timer:w2:t', 'deliver:store->w1:s3.get.ok']);
    expect(early).toEqual([{ recorded: 2 }, { recorded: 4, deviation: 'timer-early' }, { recorded: 3 }]);
    const late = recordedOrigins(sc, file(rec), ['deliver:w1->store:s3.get', 'deliver:store->w1:s3.get.ok', 'deliver:w2->store:s3.get', 'timer:w2:t']);
    expect(late.map((o) => o.deviation)).toEqual([undefined, undefined, 'reorder', 'timer-late']);
  });

  it('an input from env earlier, a fault and a step the recording does not have', () => {
    const o = recordedOrigins(sc, file(rec), ['input:env->w1:poke', 'deliver:w1->store:s3.get', 'deliver:store->w1:s3.get.ok!403', 'crash:w2', 'deliver:w9->store:x']);
    expect(o).toEqual([{ recorded: 6, deviation: 'input-earlier' }, { recorded: 2 }, { deviation: 'fault' }, { deviation: 'fault' }, { deviation: 'unrecorded' }]);
  });
});
