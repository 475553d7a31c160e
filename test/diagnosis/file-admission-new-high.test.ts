/**
 * A steady Delta query whose reads stay within 1 % batch after batch looks capped, and its files
 * waiting (counted after each batch: what arrived while it ran) wander around one level. Over a
 * long run the 8-batch rise test (never falling, or a Mann–Kendall trend at about 1.6 %) meets
 * such a wander sooner or later: "Falling behind: 71 files waiting …, growing 3.8 files per minute"
 * at 26 % load. Ground lost at a cap climbs out of the range the run read before; a wander stays
 * in it, so the file admission evidence also needs a new high. Generated draws of the must-stay-
 * quiet families on Delta (judged ranges 694000–695999 and 699000–701999).
 */
import { describe, expect, it } from 'vitest';
import type { Family } from '../../src/simulator/random/types.js';
import { drawnLagOpenings } from './run-stream.js';

describe('files waiting that wander around their level at steady reads', () => {
  it.each([
    [694_200, 'restart-catch-up'],
    [695_900, 'restart-catch-up'],
    [699_166, 'near-capacity'],
    [700_697, 'utilization'],
  ] as [number, Family][])('draw %i (%s) opens no lag', (seed, family) => {
    expect(drawnLagOpenings(seed, family, 'delta-files').openings).toEqual([]);
  });
});
