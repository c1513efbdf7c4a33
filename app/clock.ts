// Time as a dependency, so that tests drive expiry, rate windows and worker age without waiting.

export interface Clock {
  now(): number; // Unix milliseconds
}

export const systemClock: Clock = { now: () => Date.now() };

export class ManualClock implements Clock {
  constructor(private ms: number = Date.UTC(2026, 10, 22, 3, 0, 0)) {}
  now() {
    return this.ms;
  }
  advance(ms: number) {
    this.ms += ms;
  }
  set(ms: number) {
    this.ms = ms;
  }
}

export const iso = (ms: number) => new Date(ms).toISOString();
