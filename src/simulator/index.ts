/**
 * The micro-batch simulator and its labelled scenario corpus: everything public from src/simulator.
 */
export * from './arrivals.js';
export * from './spec.js';
export { StreamSimulator, type BatchTruth, type SimulatedBatch } from './stream-simulator.js';
export { toSparkJson, toSparkPrettyJson } from './spark-json.js';
export { javaDoubleToString, sparkTimestamp } from './java-format.js';
export { SeededRandom } from './random.js';
export { validateSpec, SimulatorSpecError, SimulatorTimeError } from './spec-validation.js';
export {
  labelScenario,
  simulateScenario,
  resolveOnset,
  EARLY_TOLERANCE_REPORTS,
  type Scenario,
  type ExpectedIncident,
  type OnsetRule,
  type ScenarioEngineOptions,
  type ResolvedExpectation,
  type LabelledRun,
} from './scenario.js';
export { SCENARIOS, scenarioByName } from './scenarios/index.js';
