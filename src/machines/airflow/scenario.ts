// Builds the `airflow-checkpoints` scenario: the task process (its operators end as its timers),
// the supervisor (with the API: the task state store of src/storage and the XCom
// table behind it) and the runner.
import { defineScenario, type ActorLogic, type ActorSpec, type Scenario } from '../../actors/index.ts';
import { taskStateStore } from '../../storage/task-state.ts';
import type { TaskStateFault } from '../../storage/messages.ts';
import { batchNumber, configOf, type AirflowConfig } from './config.ts';
import { supervisorApi } from './api.ts';
import { runnerMachine } from './runner.ts';
import { taskProcessMachine } from './task-process.ts';
import { airflowLegend } from './legend.ts';
import { airflowProperties } from './properties.ts';

/** The task state store with the fault switches of the configuration (F1, F2, F3, F9, F10). */
export function storeFor(cfg: AirflowConfig) {
  return taskStateStore({
    backend: cfg.backend,
    maxValueStorageBytes: cfg.maxValueStorageBytes,
    rowCapBytes: cfg.rowCapBytes > 0 ? cfg.rowCapBytes : Infinity,
    faults: {
      choose: (msg) => {
        const out: TaskStateFault[] = [];
        if (msg.type === 'ts.set') {
          if (cfg.writeError) out.push('fail');
          if (cfg.ambiguousWrite) out.push('ambiguous');
        } else if (msg.type === 'ts.get') {
          if (cfg.readError) out.push('fail');
          // Retention cleanup or a lifecycle rule removed a batch just before the retry read it.
          if (cfg.externalDelete && batchNumber(String(msg.key)) >= 0) out.push('vanished');
        }
        return out;
      },
    },
  });
}

/** The airflow-checkpoints scenario for a configuration (`over` on top of the defaults). */
export function buildAirflow(over: Partial<AirflowConfig>): Scenario {
  const cfg = configOf(over);
  const actors: Record<string, ActorLogic | ActorSpec> = { task: taskProcessMachine(cfg) };
  actors.supervisor = supervisorApi(cfg, storeFor(cfg));
  actors.runner = runnerMachine(cfg);
  // A second process on the same task: a double dispatch, or a zombie's successor.
  if (cfg.processes === 2) actors.task2 = taskProcessMachine(cfg, 'task2');
  const props = cfg.properties ? airflowProperties(cfg) : {};
  return defineScenario({
    name: 'airflow-checkpoints',
    description: `iterable task checkpoints, design ${cfg.design}, N=${cfg.items}, W=${cfg.W}`,
    actors,
    faults: { budget: cfg.faultBudget, crash: cfg.hardKill ? ['task'] : [], restart: ['task'], outcomes: ['supervisor'] },
    // A crashed task process is restarted as the next try (the restart step follows).
    acceptEnd: (q) => q.context('runner').final !== null || q.status('task') === 'crashed',
    ...props,
    params: { ...cfg, script: cfg.script.map((a) => a.join('')).join('/') },
    legend: airflowLegend(),
  });
}
