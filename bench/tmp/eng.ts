import { readFileSync } from 'node:fs';
import { parseProgress } from '../../src/progress/parse-progress.js';
import { Diagnosis } from '../../src/diagnosis/engine.js';
const lines = readFileSync('/tmp/tp/stateful.jsonl', 'utf8').split('\n').filter(Boolean);
const raws = lines.map((l) => JSON.parse(l));
const rounds = Number(process.argv[2] ?? 5);
let bestParse = Infinity, bestEng = Infinity;
for (let r = 0; r < rounds; r++) {
  let t0 = performance.now();
  const ps = raws.map((v) => { const res = parseProgress(v); if (!res.ok) throw new Error(res.error); return res.progress; });
  bestParse = Math.min(bestParse, performance.now() - t0);
  t0 = performance.now();
  const engine = new Diagnosis();
  for (const p of ps) engine.add(p);
  const out = engine.finish();
  bestEng = Math.min(bestEng, performance.now() - t0);
  if (r === 0) console.log('incidents', JSON.stringify(out).length);
}
console.log(`parseProgress ${bestParse.toFixed(0)} ms, engine ${bestEng.toFixed(0)} ms`);
