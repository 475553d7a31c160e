/**
 * A small seeded PRNG (mulberry32) so every simulated run is reproducible from its seed:
 * the corpus, the tests and the demo see the same numbers on every machine.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    // Mix the seed so nearby seeds (1, 2, 3) do not start from nearby states.
    this.state = (Math.imul(seed | 0, 0x9e3779b1) ^ 0x5bd1e995) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = Math.max(this.next(), 1e-12);
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A multiplicative noise factor around 1 with the given relative spread, never below 0. */
  factor(relativeSd: number): number {
    if (relativeSd <= 0) return 1;
    return Math.max(0, 1 + relativeSd * this.normal());
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** A version-4-shaped UUID drawn from this generator (deterministic per seed). */
  uuid(): string {
    const hex: string[] = [];
    for (let i = 0; i < 32; i++) hex.push(this.int(16).toString(16));
    hex[12] = '4';
    hex[16] = ((this.int(4) + 8) as number).toString(16);
    const s = hex.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
}
