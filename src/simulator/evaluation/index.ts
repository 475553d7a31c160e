/**
 * Evaluation of the engine on the labelled corpus (used by test/scenarios and `npm run eval`).
 * Kept out of src/simulator/index.ts so the simulator itself never loads the engine.
 */
export { runEngine, type EngineRun, type TimedChange } from './run-engine.js';
export { scoreScenario, openings, type ScenarioScore, type ExpectationScore, type Opening } from './score.js';
export { StaticBacklogRule, type StaticRuleOptions } from './static-backlog-rule.js';
export { runRandomEngine, TICK_MS, type RandomQueryRun } from './run-random.js';
export { alarmOpeningText, scoreRandom, type DrawScore, type EpisodeScore, type StallScore, type Alarm } from './score-random.js';
export { compareDraws, DrawMismatchError, type DrawMove, type EpisodeMove, type EpisodeOutcome } from './compare-draws.js';
export { summarize, groupBy, judgeTargets, percentDown, percentile, wilsonInterval, type GroupSummary, type Spread, type Target } from './random-summary.js';
export { scoreRealTrace, type RealTraceLabels, type RealTraceScore, type RealOpening } from './score-real.js';
