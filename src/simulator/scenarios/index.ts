/** The labelled corpus: every kind, every cause, and every case that must not fire (bursts, restarts, idle streams). */

import type { Scenario } from '../scenario.js';
import { LAG } from './lag.js';
import { MORE } from './more.js';
import { MUST_NOT_FIRE } from './must-not-fire.js';
import { STATE_AND_MORE } from './state-and-more.js';

export const SCENARIOS: Scenario[] = [...MUST_NOT_FIRE, ...LAG, ...STATE_AND_MORE, ...MORE];

/** A scenario by name; throws with the known names when it does not exist. */
export function scenarioByName(name: string): Scenario {
  const found = SCENARIOS.find((s) => s.name === name);
  if (!found) throw new Error(`unknown scenario "${name}"; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  return found;
}
