/**
 * The stand-in's notion of "now" for its streams: real time, or real time sped up (60× turns an hour
 * of stream into a minute), plus manual jumps for tests. HTTP behaviour (token lifetimes, statement
 * latency) stays in real time; only the simulated streams and their timestamps follow this clock.
 */
export class ScaledClock {
  private baseRealMs: number;
  private baseSimMs: number;
  private speed: number;

  /**
   * @param startMs simulated time at creation. @defaultValue Date.now()
   * @param speed simulated ms per real ms. @defaultValue 1
   */
  constructor(startMs: number = Date.now(), speed = 1, private readonly realNow: () => number = Date.now) {
    this.baseRealMs = realNow();
    this.baseSimMs = startMs;
    this.speed = speed;
  }

  now(): number {
    return this.baseSimMs + (this.realNow() - this.baseRealMs) * this.speed;
  }

  getSpeed(): number {
    return this.speed;
  }

  setSpeed(speed: number): void {
    if (!(speed >= 0) || !Number.isFinite(speed)) throw new RangeError(`clock speed must be a finite number ≥ 0, got ${speed}`);
    this.rebase();
    this.speed = speed;
  }

  /** Jumps simulated time forward. */
  advance(ms: number): void {
    this.rebase();
    this.baseSimMs += ms;
  }

  private rebase(): void {
    this.baseSimMs = this.now();
    this.baseRealMs = this.realNow();
  }
}
