// `npm run bench -- data-plane [--quick]`: the Amber data benchmark (bs 10/100/1000,
// 10 string columns of 64 characters, 20 timed echoes after 5 warm-up) through the
// simulated channel, per CPU second, next to the source's tuples/s, with what one
// round trip's IPC costs and the copy floor that bounds any IPC-per-message channel.
import { channelThroughput, codecCost, SOURCE_TUPLES_PER_S, type BatchSize } from './data-plane.ts';
import { printTable } from './table.ts';

export default async function (argv: string[]): Promise<void> {
  const reps = argv.includes('--quick') ? 1 : 5;
  const rows: (string | number)[][] = [];
  for (const bs of [10, 100, 1000] as BatchSize[]) {
    const src = SOURCE_TUPLES_PER_S[bs];
    const ref = await channelThroughput(bs, { reps, wire: false });
    const ipc = await channelThroughput(bs, { reps });
    const c = codecCost(bs);
    const x = (t: number) => `${Math.round(t).toLocaleString('en-US')} (${Math.round(t / src).toLocaleString('en-US')}×)`;
    rows.push([bs, src, x(ref.tuplesPerCpuS), x(ipc.tuplesPerCpuS), x(ipc.tuplesPerWallS), Math.round(c.streamPerMessageUs), Math.round(c.batchMessageUs), Math.round(c.copyUs), x((bs * 1e6) / c.copyUs)]);
  }
  printTable(
    'Amber data benchmark: tuples per CPU second of the simulated channel (identity worker, echo awaited), against the source',
    ['bs', 'source tuples/s', 'by reference /CPU s', 'IPC per message /CPU s', 'IPC per message /wall s', 'µs IPC per round trip: tableToIPC', 'µs: batch message', 'µs: 2 copies (floor)', 'copy floor tuples/s'],
    rows,
    'CPU time is process.cpuUsage over the timed echoes (after a JIT warm-up run); the machine is shared, so wall time mostly measures its load. A round trip encodes and decodes\n' +
      'twice; "2 copies" writes the message bytes into two fresh buffers, which any encoder producing bytes must do, so bs / that time bounds an IPC-per-message channel.',
  );
}
