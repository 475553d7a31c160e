/** The randomized scenario corpus: draws by seed, their simulation and their labels from the truth. */
export * from './types.js';
export * from './deadline.js';
export { drawScenario, type DrawOptions } from './draw.js';
export { simulateRandom, type SimulatedQuery, type SimulatedRandom } from './simulate.js';
export { labelQuery, type LagLabel, type StallLabel, type QueryLabel } from './labels.js';
export { MODE_DESCRIPTIONS } from './reporting-modes.js';
