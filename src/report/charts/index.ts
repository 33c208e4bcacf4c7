// Statecharts of a scenario's machines: model, layout, SVG, Mermaid, Stately JSON.
export { chartOf, allStates, activePaths, takenTransitions, guardText, type MachineChart, type ChartState, type ChartTransition, type StateKind } from './chart.ts';
export { layoutChart, type ChartLayout, type LaidState, type LaidEdge } from './layout.ts';
export { chartSvg, CHART_CSS } from './svg.ts';
export { chartMermaid } from './mermaid.ts';
export { statelyJson, type Json } from './stately.ts';
export { scenarioCharts, layoutOf, chartTitle, type ActorChart, type ScenarioCharts } from './scenario.ts';
export { chartsMermaid, chartsJson, chartsHtml } from './page.ts';
