/** One part the server depends on, as `GET /health` reports it. */
export interface HealthComponent {
  /** The key under `components` in the answer, e.g. `sandbox`. */
  readonly name: string;
  /**
   * Its last known state: answered at once and never throws (the checks run in the background, so a load balancer
   * asking often does not multiply them).
   */
  state(): HealthComponentState;
}

/** What `/health` says about one component. */
export interface HealthComponentState {
  /** `degraded`: it works with less (some of several services down); `down`: it does not work now. */
  readonly status: 'ok' | 'degraded' | 'down';
  /** In words, for the operator: what is down and what that means. */
  readonly detail?: string;
}

/**
 * The body of `/health`: the process serves (`ok` stays true, so a liveness probe does not restart a replica for a
 * dependency it cannot fix), the turns it runs, and the state of each component; `status` is the worst of them.
 */
export function healthReport(options: {
  readonly runningTurns: number;
  readonly components: readonly HealthComponent[];
}): {
  ok: true;
  runningTurns: number;
  status?: 'ok' | 'degraded';
  components?: Record<string, HealthComponentState>;
} {
  if (options.components.length === 0) return { ok: true, runningTurns: options.runningTurns };
  const components = Object.fromEntries(options.components.map((part) => [part.name, part.state()]));
  const healthy = Object.values(components).every((state) => state.status === 'ok');
  return { ok: true, runningTurns: options.runningTurns, status: healthy ? 'ok' : 'degraded', components };
}
