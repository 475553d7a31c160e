const root = process.argv[2] === 'new' ? '..' : '/tmp/base';
const { runRandomEngine } = await import(root + '/src/simulator/evaluation/index.js');
const { drawScenario, simulateRandom } = await import(root + '/src/simulator/random/index.js');
const { QUIET_FAMILIES, REPORTING_MODES } = await import(root + '/src/simulator/random/types.js');
const from = Number(process.argv[3]), count = Number(process.argv[4]);
for (let seed = from; seed < from + count; seed++) {
  for (const family of ['utilization', 'near-capacity', 'idle-gaps']) {
    for (const mode of REPORTING_MODES) {
      const sim = simulateRandom(drawScenario(seed, { family, mode }));
      for (const run of runRandomEngine(sim)) for (const c of run.changes) if (c.change.type === 'opened' && c.change.incident.kind === 'lag') console.log(seed, family, mode, c.index);
    }
  }
}
