// Public surface of the report layer: read, validate and render saved traces.
export { DEFAULT_TRACE_LIMITS, TRACE_LIMIT_NAMES, parseTraceLimits, traceBytesProblem, traceSizeProblem, type TraceLimits } from './trace-limits.ts';
export { TRACE_SCHEMA_VERSION, EVENT_KINDS, traceJsonSchema, validateTraceFile, parseTraceText, parseTraceBytes, TraceFileError, type TraceFileData, type TraceEventData, type ReadResult } from './schema.ts';
export { traceView, fileView, stepSummary, busyActors, type StepView, type StateMove, type TraceView } from './model.ts';
export { stateChange, stateAfter } from './state-change.ts';
export { reportContext, type ReportContext } from './context.ts';
export { scenarioCharts, chartOf, chartMermaid, chartsMermaid, chartsHtml, chartsJson, statelyJson, type MachineChart, type ChartState, type ChartTransition, type StateKind, type ActorChart, type Json, type ScenarioCharts } from './charts/index.ts';
export { formatText, formatSteps, deviationMarks, legendLines, shortName, safeText, lassoEnd, stepsText, propertyLabel } from './text.ts';
export { contextChanges, contextLine, shortValue, type ContextChange } from './context-change.ts';
export { formatMermaid, mermaidText } from './mermaid.ts';
export { formatHtml, formatHtmlPieces, viewerData, scriptSafeJson, escapeHtml, RenderTooLargeError } from './html.ts';
export { diffSchedules, type ScheduleDiff, type DiffRow } from './diff.ts';
export { formatTable } from './table.ts';
export { styleFor, plain, ansi, type Style } from './style.ts';

import type { Format } from './formats.ts';
import type { ReportContext } from './context.ts';
import type { TraceFileData } from './schema.ts';
import { formatText } from './text.ts';
import { formatMermaid } from './mermaid.ts';
import { formatHtml } from './html.ts';

export { FORMATS, type Format } from './formats.ts';

/** Renders a validated trace file in one of the formats of `interleave show` (`ctx`: the scenario's legend and charts, see `reportContext`). */
export function render(f: TraceFileData, format: Format, ctx: ReportContext = {}): string {
  switch (format) {
    case 'text':
      return formatText(f, undefined, ctx);
    case 'mermaid':
      return formatMermaid(f, ctx);
    case 'html':
      return formatHtml(f, ctx);
    case 'json':
      return `${JSON.stringify(f, null, 2)}\n`;
  }
}
