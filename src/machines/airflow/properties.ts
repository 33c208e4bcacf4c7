import type { ScenarioDef } from '../../actors/index.ts';
import type { AirflowConfig } from './config.ts';

export function airflowProperties(_cfg: AirflowConfig): Partial<ScenarioDef> {
  return {};
}
